/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#ifndef JB_TESTHOOK_H
#define JB_TESTHOOK_H

/*
 * The test switch: jailbeed -T turns it on (and refuses it with the
 * installed configuration file) and passes -T to every child it starts.
 * Every build has it; no hook changes what a process's lock-down allows.
 */
extern int	jb_testing;

/* prod seconds, or test seconds when the test switch is on */
int	jb_test_secs(int prod, int test);

#endif /* JB_TESTHOOK_H */
