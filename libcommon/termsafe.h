/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#ifndef JB_TERMSAFE_H
#define JB_TERMSAFE_H

/*
 * Text that came from a container, on its way to a terminal: in place,
 * every byte that could steer the terminal becomes '?': C0 controls but
 * tab, DEL, the C1 controls (U+0080..U+009F) and any byte that is not
 * part of well-formed UTF-8.  Other UTF-8 stays as it is.  Returns s.
 */
char	*termsafe(char *s);

#endif /* JB_TERMSAFE_H */
