/* lanes.h - one job in two halves, the second on a thread of its own. */
#ifndef PRIVD_LANES_H
#define PRIVD_LANES_H

/*
 * Runs fn(first) here and fn(second) beside it on a new thread, and
 * returns when both are done. With threaded 0, or when no thread can be
 * started, both run here one after the other: the halves' results are the
 * same either way, only slower.
 */
void lanes_run(void *(*fn)(void *), void *first, void *second, int threaded);

#endif
