/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */


#ifndef JB_MEMTRIM_H
#define JB_MEMTRIM_H

/*
 * at start, before any allocation: a block of 64 kB or more that the
 * heap cannot hold without growing is a mapping of its own (memtrim.c)
 */
void	memtrim_init(void);
/* give freed heap back to the kernel a second from now (memtrim.c) */
void	memtrim_soon(void);
/* fn runs before each trim: it frees what is kept between bursts only to
 * be quicker, and is made again on next use */
void	memtrim_dropper(void (*fn)(void));

#endif /* JB_MEMTRIM_H */
