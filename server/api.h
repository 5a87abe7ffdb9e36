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

/* api_quota.c */
enum MHD_Result api_quota(struct req *r);
enum MHD_Result api_charge(struct req *r);
enum MHD_Result api_refund(struct req *r);
enum MHD_Result api_hold(struct req *r);
enum MHD_Result api_hold_commit(struct req *r);
enum MHD_Result api_hold_release(struct req *r);
enum MHD_Result api_credit(struct req *r);
enum MHD_Result api_topup(struct req *r);
enum MHD_Result api_topup_reverse(struct req *r);
enum MHD_Result api_ledger(struct req *r);
enum MHD_Result api_quote(struct req *r);
/* An account's paid wallet of quota into o ("paid", "total_remaining", the
 * latter from o's "remaining"), as this privd last saw it (wallet.h). */
void api_paid(json_t *o, const struct cfg *c, const char *uid, const char *quota);
/* Into o: limit, credit, used, held, remaining and period of holder's
 * quota in the period of now, as privd last saw it; with period null and
 * period_error when now is in no period. */
void api_usage(json_t *o, const struct cfg *c, const char *holder, const char *quota,
    enum period_kind kind, long long limit, time_t now);

/* api_prefs.c */
enum MHD_Result api_prefs(struct req *r);
enum MHD_Result api_prefs_set(struct req *r);

/* api_vouchers.c */
enum MHD_Result api_voucher_create(struct req *r);
enum MHD_Result api_voucher_list(struct req *r);
enum MHD_Result api_voucher_redeem(struct req *r);

/* api_printers.c */
enum MHD_Result api_printers(struct req *r);
enum MHD_Result api_printer(struct req *r);

/* api_session.c */
enum MHD_Result api_session_open(struct req *r);
enum MHD_Result api_session_renew(struct req *r);
enum MHD_Result api_session_close(struct req *r);
enum MHD_Result api_sessions(struct req *r);

/* api_import.c */
enum MHD_Result api_import(struct req *r);
enum MHD_Result api_imports(struct req *r);
enum MHD_Result api_import_abort(struct req *r);

/* api_tree.c */
enum MHD_Result api_node_add(struct req *r);
enum MHD_Result api_node_delete(struct req *r);
enum MHD_Result api_node_move(struct req *r);

/* api_cells.c */
enum MHD_Result api_grant_set(struct req *r);
enum MHD_Result api_grant_revoke(struct req *r);
enum MHD_Result api_pool_set(struct req *r);
enum MHD_Result api_pool_unset(struct req *r);

/* api_members.c */
enum MHD_Result api_member_add(struct req *r);
enum MHD_Result api_member_remove(struct req *r);
enum MHD_Result api_members_expiring(struct req *r);
enum MHD_Result api_members_purge(struct req *r);

/* api_pool.c */
enum MHD_Result api_pools(struct req *r);
enum MHD_Result api_pool(struct req *r);
enum MHD_Result api_pool_members(struct req *r);
enum MHD_Result api_account_pools(struct req *r);

/* api_model.c; api_enter: the current snapshot (snap_leave(*t) after),
 * or NULL having answered 503 before the first */
const struct snap *api_enter(struct req *r, int *t, enum MHD_Result *ret);
enum MHD_Result api_export(struct req *r);
enum MHD_Result api_tree(struct req *r);
enum MHD_Result api_who(struct req *r);
enum MHD_Result api_report_usage(struct req *r);
enum MHD_Result api_cells(struct req *r);

#endif
