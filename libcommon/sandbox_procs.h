/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#ifndef JB_SANDBOX_PROCS_H
#define JB_SANDBOX_PROCS_H

#include <stddef.h>
#include <stdint.h>

/* log forbidden calls instead of killing (jailbeed -D): writing policies */
void	sandbox_set_debug(int);
void	sandbox_jailbeed(const char *sockdir, int journaldir);
void	sandbox_jb_reaper(const char *sockdir, char *summary, size_t len);
void	sandbox_jb_incus(uint16_t https_port);
void	sandbox_jb_netd(const char *, const char *);
void	sandbox_jb_mountd(const char *);
void	sandbox_jb_sshd(void);
void	sandbox_jb_gitd(void);
void	sandbox_jb_gitd_worker(const char *top, const char *gitdir,
	    const char *home);
/* a fork of jb-gitd writing one bundle: reads the checkout only */
void	sandbox_jb_gitd_bundler(const char *top, const char *home);
void	sandbox_jb_sshd_spawner(void);
void	sandbox_jb_egress(const uint16_t *ports, size_t nports);

#endif /* JB_SANDBOX_PROCS_H */
