/* api.h - the REST handlers, one file per API area (api_*.c). */
#ifndef PRIVD_API_H
#define PRIVD_API_H

#include "http.h"

/* api_status.c */
enum MHD_Result api_healthz(struct req *r);
enum MHD_Result api_readyz(struct req *r);
enum MHD_Result api_metrics(struct req *r);

/* api_privileges.c */
enum MHD_Result api_privileges(struct req *r);
enum MHD_Result api_privilege(struct req *r);
enum MHD_Result api_check(struct req *r);

/* api_admin.c */
enum MHD_Result api_import(struct req *r);

#endif
