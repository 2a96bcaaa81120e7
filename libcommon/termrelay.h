/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#ifndef JB_TERMRELAY_H
#define JB_TERMRELAY_H

/*
 * Copy what a program writes to two pipes, in (its stdout) and err (its
 * stderr), to out and errout until both end, every line made safe for a
 * terminal on the way (termsafe: controls and broken UTF-8 become '?').
 * Either input may be -1.  Closes in and err.  0, or -1 when a write
 * failed (the rest is still read, so the program is never blocked).
 */
int	termrelay(int in, int err, int out, int errout);

#endif /* JB_TERMRELAY_H */
