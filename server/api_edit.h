/*
 * api_edit.h - what the administrator's writes over REST share (imports,
 * tree nodes, grants, memberships): the body, dry runs, the summary of a
 * change and its refusals. Each edit is validated whole, then written as
 * one change (change.h: entry by entry, readers seeing all of it or
 * none); with an admin key as privd, with HTTP Basic as the administrator
 * (the directory's ACLs decide).
 */
#ifndef PRIVD_API_EDIT_H
#define PRIVD_API_EDIT_H

#include <jansson.h>

#include "api.h"
#include "apply.h"
#include "change.h"
#include "import.h"

/* The summary of a change as the API answers it. */
json_t *edit_summary(const struct apply_summary *s, int dry_run);

/* Whether ?dry_run=1 (or true) asks for a plan only. */
int edit_dry_run(struct req *r);

/* The refusal of a change: 409 import_open while another is unfinished. */
enum MHD_Result edit_refused(struct req *r, const struct err *e, const char *code);

/* The body as a JSON object with only the allowed fields; else answers 400. */
json_t *edit_body(struct req *r, const char *const *allowed, enum MHD_Result *ret);

/* Field k of o as a string, or NULL. */
const char *edit_field(json_t *o, const char *k);

/* What identifies an edit, for resuming it: the body, or the query. */
void edit_req(struct req *r, const char *what, const char *query, struct chg_req *rq);

/* Runs an edit document and answers: 200 with the changes, or the error. */
enum MHD_Result edit_run(struct req *r, struct import_doc *doc, const char *what,
    const char *query);

/* Adds path and its ancestors to the doc's nodes (parents first). */
int edit_add_nodes(struct import_node **nodes, size_t *n, const char *path);

#endif
