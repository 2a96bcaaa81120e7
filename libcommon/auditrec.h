/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#ifndef JB_AUDITREC_H
#define JB_AUDITREC_H

#include <stddef.h>
#include <time.h>

/*
 * One line of the audit journal: a JSON object with, in this order,
 * time, actor (uid:N, or a key's SHA256: fingerprint over SSH),
 * container, repo, action ("net.loose", "mount", "ssh.exec", ...),
 * decision, reason, then the action's own fields.  Every string value
 * goes through termsafe and is cut at AUDIT_VALUE_MAX bytes (the cut
 * ends in "..."), so no terminal byte and no huge name gets in.
 */
#define AUDIT_VALUE_MAX		128
#define AUDIT_EXTRA_MAX		8
#define AUDIT_LINE_MAX		8192

struct audit_extra {
	const char	*key;		/* a fixed word of the code */
	const char	*str;		/* NULL: num is the value */
	long long	 num;
};

struct audit_rec {
	time_t			 when;
	const char		*actor;
	const char		*container;
	const char		*repo;
	const char		*action;
	const char		*decision;
	const char		*reason;	/* NULL: none */
	struct audit_extra	 extra[AUDIT_EXTRA_MAX];
	int			 nextra;
};

void	audit_str(struct audit_rec *, const char *, const char *);
void	audit_num(struct audit_rec *, const char *, long long);
/* the line, no newline; -1 when it would not fit */
int	audit_format(const struct audit_rec *, char *, size_t);

struct audit_filter {
	const char	*cutoff;	/* "YYYY-MM-DDTHH:MM:SSZ": this or later */
	const char	*container;	/* exactly */
	const char	*action;	/* exactly, or a prefix ending at a '.' */
	const char	*actor;		/* exactly */
};
/* 1: the line is a journal object that passes every filter set */
int	audit_match(const char *, const struct audit_filter *);
/* one line of text for the journal line: "TIME ACTOR ACTION ..." */
int	audit_text(const char *, char *, size_t);

#endif /* JB_AUDITREC_H */
