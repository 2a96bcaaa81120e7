/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#ifndef JBCTL_H
#define JBCTL_H

#include "jb_msg.h"

enum output_format {
	OUTPUT_TEXT,
	OUTPUT_JSON,
};

/* one back end per format, as bgpctl does; tests read the JSON */
struct output {
	void	(*status_begin)(void);
	void	(*status_entry)(const struct jb_proc_status *, int64_t now);
	void	(*status_end)(void);
	void	(*version)(const char *client, const char *daemon);
};

extern const struct output	text_output;
extern const struct output	json_output;

#endif /* JBCTL_H */
