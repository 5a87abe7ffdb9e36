/*
 * routes.c - privd's REST API as a table: each route's method and path, the
 * key scope it needs, its handler and its name in the metrics. main hands
 * it to http_start; doc/api.md describes every route. The person column says
 * what someone signed in as themselves may do there (authz.h); a route that
 * names none is for administrators and keys alone.
 */
#include "api.h"
#include "authz.h"
#include "routes.h"
#include "ui.h"

const struct http_route routes[] = {
	{ "GET", "/healthz", 0, api_healthz, "healthz", 0, AUTHZ_STAFF },
	{ "GET", "/ui", 0, ui_file, "ui", 0, AUTHZ_STAFF },
	{ "GET", "/ui/*", 0, ui_file, "ui", 0, AUTHZ_STAFF },
	{ "POST", "/v1/tokens", 0, ui_token, "token", 0, AUTHZ_STAFF },
	{ "GET", "/v1/cells", SCOPE_READ, api_cells, "cells", 0, AUTHZ_STAFF },
	{ "GET", "/readyz", 0, api_readyz, "readyz", 0, AUTHZ_STAFF },
	{ "GET", "/metrics", HTTP_SCOPE_METRICS, api_metrics, "metrics", 0, AUTHZ_STAFF },
	{ "GET", "/v1/accounts/*/privileges", SCOPE_READ, api_privileges, "privileges", 0, AUTHZ_OWN_READ },
	{ "GET", "/v1/accounts/*/privileges/*", SCOPE_READ, api_privilege, "privilege", 0, AUTHZ_OWN_READ },
	{ "GET", "/v1/accounts/*/check", SCOPE_READ, api_check, "check", 0, AUTHZ_OWN_READ },
	{ "GET", "/v1/accounts/*/quotas/*", SCOPE_READ, api_quota, "quota", 0, AUTHZ_OWN_READ },
	{ "POST", "/v1/accounts/*/quotas/*/charges", SCOPE_CHARGE, api_charge, "charge", 0, AUTHZ_STAFF },
	{ "POST", "/v1/accounts/*/quotas/*/refunds", SCOPE_CHARGE, api_refund, "refund", 0, AUTHZ_STAFF },
	{ "POST", "/v1/accounts/*/quotas/*/holds", SCOPE_CHARGE, api_hold, "hold", 0, AUTHZ_STAFF },
	{ "POST", "/v1/accounts/*/quotas/*/holds/*/commit", SCOPE_CHARGE, api_hold_commit, "hold_commit", 0, AUTHZ_STAFF },
	{ "DELETE", "/v1/accounts/*/quotas/*/holds/*", SCOPE_CHARGE, api_hold_release, "hold_release", 0, AUTHZ_STAFF },
	{ "POST", "/v1/accounts/*/quotas/*/credits", SCOPE_ADMIN, api_credit, "credit", 0, AUTHZ_STAFF },
	{ "GET", "/v1/accounts/*/quotas/*/ledger", SCOPE_READ, api_ledger, "ledger", 0, AUTHZ_OWN_READ },
	{ "POST", "/v1/accounts/*/quotas/*/topups", SCOPE_TOPUP, api_topup, "topup", 0, AUTHZ_STAFF },
	{ "POST", "/v1/accounts/*/vouchers", SCOPE_TOPUP, api_voucher_redeem, "voucher_redeem", 0, AUTHZ_OWN_ONLY },
	{ "GET", "/v1/accounts/*/preferences", SCOPE_READ, api_prefs, "preferences", 0, AUTHZ_OWN_READ },
	{ "POST", "/v1/accounts/*/preferences", SCOPE_ADMIN, api_prefs_set, "preferences_set", 0, AUTHZ_OWN_WRITE },
	{ "POST", "/v1/vouchers", SCOPE_ADMIN, api_voucher_create, "voucher_create", 1, AUTHZ_STAFF },
	{ "GET", "/v1/vouchers", SCOPE_ADMIN, api_voucher_list, "vouchers", 0, AUTHZ_STAFF },
	{ "POST", "/v1/accounts/*/quotas/*/topups/*/reversal", SCOPE_ADMIN, api_topup_reverse,
	    "topup_reversal", 0, AUTHZ_STAFF },
	{ "POST", "/v1/accounts/*/quotes", SCOPE_READ, api_quote, "quote", 0, AUTHZ_OWN_READ },
	{ "GET", "/v1/printers", SCOPE_READ, api_printers, "printers", 0, AUTHZ_STAFF },
	{ "GET", "/v1/printers/*", SCOPE_READ, api_printer, "printer", 0, AUTHZ_STAFF },
	{ "POST", "/v1/accounts/*/sessions", SCOPE_CHARGE, api_session_open, "session_open", 0, AUTHZ_STAFF },
	{ "POST", "/v1/accounts/*/sessions/*/renew", SCOPE_CHARGE, api_session_renew, "session_renew", 0, AUTHZ_STAFF },
	{ "DELETE", "/v1/accounts/*/sessions/*", SCOPE_CHARGE, api_session_close, "session_close", 0, AUTHZ_STAFF },
	{ "GET", "/v1/accounts/*/sessions", SCOPE_READ, api_sessions, "sessions", 0, AUTHZ_OWN_READ },
	{ "GET", "/v1/accounts/*/pools", SCOPE_READ, api_account_pools, "account_pools", 0, AUTHZ_OWN_READ },
	{ "GET", "/v1/pools", SCOPE_READ, api_pools, "pools", 0, AUTHZ_STAFF },
	{ "POST", "/v1/pools", SCOPE_ADMIN, api_pool_set, "pool_set", 0, AUTHZ_STAFF },
	{ "DELETE", "/v1/pools", SCOPE_ADMIN, api_pool_unset, "pool_unset", 0, AUTHZ_STAFF },
	{ "GET", "/v1/pools/*", SCOPE_READ, api_pool, "pool", 0, AUTHZ_STAFF },
	{ "GET", "/v1/pools/*/members", SCOPE_READ, api_pool_members, "pool_members", 0, AUTHZ_STAFF },
	{ "GET", "/v1/pools/*/quotas/*", SCOPE_READ, api_quota, "pool_quota", 0, AUTHZ_STAFF },
	{ "POST", "/v1/pools/*/quotas/*/charges", SCOPE_CHARGE, api_charge, "pool_charge", 0, AUTHZ_STAFF },
	{ "POST", "/v1/pools/*/quotas/*/refunds", SCOPE_CHARGE, api_refund, "pool_refund", 0, AUTHZ_STAFF },
	{ "POST", "/v1/pools/*/quotas/*/holds", SCOPE_CHARGE, api_hold, "pool_hold", 0, AUTHZ_STAFF },
	{ "POST", "/v1/pools/*/quotas/*/holds/*/commit", SCOPE_CHARGE, api_hold_commit, "pool_hold_commit", 0, AUTHZ_STAFF },
	{ "DELETE", "/v1/pools/*/quotas/*/holds/*", SCOPE_CHARGE, api_hold_release, "pool_hold_release", 0, AUTHZ_STAFF },
	{ "POST", "/v1/pools/*/quotas/*/credits", SCOPE_ADMIN, api_credit, "pool_credit", 0, AUTHZ_STAFF },
	{ "GET", "/v1/pools/*/quotas/*/ledger", SCOPE_READ, api_ledger, "pool_ledger", 0, AUTHZ_STAFF },
	{ "POST", "/v1/import", SCOPE_ADMIN, api_import, "import", 1, AUTHZ_STAFF },
	{ "GET", "/v1/imports", SCOPE_ADMIN, api_imports, "imports", 0, AUTHZ_STAFF },
	{ "POST", "/v1/imports/*/abort", SCOPE_ADMIN, api_import_abort, "import_abort", 1, AUTHZ_STAFF },
	{ "GET", "/v1/export", SCOPE_ADMIN, api_export, "export", 0, AUTHZ_STAFF },
	{ "GET", "/v1/tree/*", SCOPE_READ, api_tree, "tree", 0, AUTHZ_STAFF },
	{ "GET", "/v1/who", SCOPE_READ, api_who, "who", 0, AUTHZ_STAFF },
	{ "GET", "/v1/reports/usage", SCOPE_ADMIN, api_report_usage, "report_usage", 0, AUTHZ_STAFF },
	{ "POST", "/v1/nodes/*", SCOPE_ADMIN, api_node_add, "node_add", 0, AUTHZ_STAFF },
	{ "DELETE", "/v1/nodes/*", SCOPE_ADMIN, api_node_delete, "node_delete", 1, AUTHZ_STAFF },
	{ "POST", "/v1/nodes/*/move", SCOPE_ADMIN, api_node_move, "node_move", 1, AUTHZ_STAFF },
	{ "POST", "/v1/grants", SCOPE_ADMIN, api_grant_set, "grant", 0, AUTHZ_STAFF },
	{ "DELETE", "/v1/grants", SCOPE_ADMIN, api_grant_revoke, "revoke", 0, AUTHZ_STAFF },
	{ "POST", "/v1/memberships", SCOPE_ADMIN, api_member_add, "member_add", 0, AUTHZ_STAFF },
	{ "DELETE", "/v1/memberships", SCOPE_ADMIN, api_member_remove, "member_remove", 0, AUTHZ_STAFF },
	{ "GET", "/v1/memberships/expiring", SCOPE_READ, api_members_expiring, "members_expiring", 0, AUTHZ_STAFF },
	{ "POST", "/v1/memberships/purge-expired", SCOPE_ADMIN, api_members_purge, "members_purge", 0, AUTHZ_STAFF },
};
const int routes_count = (int)(sizeof(routes) / sizeof(routes[0]));
