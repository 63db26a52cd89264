/*
 * clock.h - the one monotonic clock pgci times things with.
 */
#ifndef PGCI_CORE_CLOCK_H
#define PGCI_CORE_CLOCK_H

/* Milliseconds on the monotonic clock (CLOCK_MONOTONIC), with sub-millisecond
 * precision: only differences between two calls mean anything. */
double now_ms(void);

#endif
