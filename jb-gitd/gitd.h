/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#ifndef JB_GITD_H
#define JB_GITD_H

#include "jb_msg.h"
#include "testhook.h"

/*
 * The bounds of one fetch's host git: CPU seconds and address space of
 * each git the worker runs, and the wall time of the whole worker past
 * the stream's own time limit (indexing and checking what arrived).
 * Under the test switch the wall time is cut short, so that a test can
 * see it.
 */
#define GITD_CPU_SECS		600
/*
 * A sanitizer build's git-remote-jailbee, which git starts, reserves
 * terabytes of shadow address space before its main runs: those builds,
 * never installed, leave the address space unbounded.
 */
#if defined(__SANITIZE_ADDRESS__)
#define GITD_AS_BYTES		0UL
#else
#define GITD_AS_BYTES		(4UL << 30)
#endif
#define GITD_AFTER_STREAM_SECS	600
#define GITD_WALL_SECS(t)	((unsigned int)jb_test_secs((int)(t) + \
				    GITD_AFTER_STREAM_SECS, 20))

/*
 * In a fork of jb-gitd: lock down to f's checkout, fetch through fd,
 * write one struct jb_gitd_result to resfd and exit.
 */
__attribute__((__noreturn__)) void gitd_worker(const struct jb_gitd_fetch *f,
    int fd, int resfd, const char *home);

/*
 * In a fork of jb-gitd: lock down to reading b's checkout, write the
 * bundle of its branch into fd, one struct jb_gitd_result to resfd and
 * exit.
 */
__attribute__((__noreturn__)) void gitd_bundler(const struct jb_gitd_bundle *b,
    int fd, int resfd, const char *home);

/*
 * In a fork of jb-gitd: lock down to reading h's checkout, answer which
 * of its ids are commits there (one struct jb_gitd_result to resfd, have
 * set) and exit.
 */
__attribute__((__noreturn__)) void gitd_haver(const struct jb_gitd_have *h,
    int resfd, const char *home);

/*
 * Why a pull over SSH may not move refs/heads/into, or NULL when it
 * may: checked out in a worktree, or a name that would shadow a
 * remote-tracking branch, a tag or a remote's names.
 */
const char	*into_refused(const char *into);

/* answer.c: a worker's one answer and its end (worker, bundler, haver) */
extern struct jb_gitd_result	gitd_res;
extern int			gitd_errfd;	/* git's stderr, or -1 */
__attribute__((__noreturn__)) void gitd_answer(int);
/* " (git: LAST LINES)" after buf's words */
void	gitd_git_said(char *, size_t);
__attribute__((__noreturn__, __format__(printf, 2, 3))) void
	gitd_refuse(int, const char *, ...);

#endif /* JB_GITD_H */
