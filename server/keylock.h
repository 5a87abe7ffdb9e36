/* keylock.h - one writer at a time per account and quota in this privd. */
#ifndef PRIVD_KEYLOCK_H
#define PRIVD_KEYLOCK_H

/*
 * Counters change by compare-and-swap (wop_swap), so two writers of one
 * counter at once make one of them read and try again. Within one privd
 * they queue here instead: a busy account costs a wait, not a failed
 * round trip. Striped: two keys may share a lock, never deadlock, as no
 * caller holds two.
 */
void keylock_take(const char *key);
void keylock_give(const char *key);

#endif
