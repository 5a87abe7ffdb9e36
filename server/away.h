/* away.h - what this privd charged each quota away from its home provider. */
#ifndef PRIVD_AWAY_H
#define PRIVD_AWAY_H

/*
 * With ldap.away_allowance above 0, a charge whose home provider is
 * unreachable goes to another one, which checks the limit against its
 * own, possibly older, counter. So the overspend stays bounded, this privd
 * lets at most the allowance of each account's quota (key, as usage.h)
 * through away from home, until it next writes that key at home.
 */
/* 0 and n counted when n more fits in allowance, else -1. */
int away_take(const char *key, long long n, long long allowance);
/* key is written at home again: its allowance is whole again. */
void away_forget(const char *key);
void away_clear(void);

#endif
