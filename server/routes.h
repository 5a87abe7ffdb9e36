/* routes.h - the REST API's route table (routes.c). */
#ifndef PRIVD_ROUTES_H
#define PRIVD_ROUTES_H

#include "http.h"

extern const struct http_route routes[];
extern const int routes_count;

#endif
