/* ui.h - the web page at /ui/: its static files, and sign-in for a token (token.h). */
#ifndef PRIVD_UI_H
#define PRIVD_UI_H

#include "http.h"

/* GET /ui and /ui/NAME: a file of ui.dir, under a strict Content-Security-Policy. */
enum MHD_Result ui_file(struct req *r);
/* POST /v1/tokens {"uid","password"}: binds as that person once, answers a token. */
enum MHD_Result ui_token(struct req *r);
/* DELETE /v1/accounts/{uid}/tokens: ends every sign-in of uid (tokenlive.h). */
enum MHD_Result ui_tokens_revoke(struct req *r);

#endif
