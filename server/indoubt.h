/* indoubt.h - request ids whose write may have landed on a provider that then went away. */
#ifndef PRIVD_INDOUBT_H
#define PRIVD_INDOUBT_H

/*
 * With several providers, a charge sent to an account's home provider
 * just before it went away may have landed there without having been
 * replicated yet. Sent again to another provider, it would land twice.
 * privd remembers such request ids (per account) and sends them only to
 * the home provider, once it is back: there the replay is found.
 */
void indoubt_add(const char *uid, const char *rid);
int indoubt_has(const char *uid, const char *rid);
void indoubt_del(const char *uid, const char *rid);

#endif
