/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

/*
 * Rendering replies as text or JSON: jbctl prints them, and jailbeed
 * renders the same replies as text for an SSH session.
 */

#ifndef JB_OUTPUT_H
#define JB_OUTPUT_H

#include <stdint.h>
#include <stdio.h>

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
	void	(*list_begin)(const char *what);	/* "containers" ... */
	void	(*instance)(const struct jb_instance *);
	void	(*snapshot)(const struct jb_snapshot *);
	void	(*list_end)(void);
	void	(*mount)(const struct jb_mount_entry *);	/* mount ls */
	void	(*image)(const struct jb_image *);	/* base usage */
	void	(*port)(const struct jb_port *);	/* port ls, net status */
	/* net status: a container, then its entries, addresses, forwards */
	void	(*net_ctr)(const struct jb_net_ctr *);
	void	(*net_allow)(const struct jb_net_allow *);
	void	(*net_addr)(const struct jb_net_addr *);
	void	(*doctor)(const struct jb_doctor_check *);	/* doctor */
	void	(*net_block)(const struct jb_net_block *);	/* net log */
	/* net refresh: each exact name asked */
	void	(*net_resolved)(const struct jb_net_resolved *);
	/* net status: a secret of the container (NULL: not shown) */
	void	(*net_secret)(const struct jb_net_secret *);
};

extern const struct output	text_output;
extern const struct output	json_output;
/* print to fp instead of stdout (jailbeed renders for SSH) */
void	output_set_file(FILE *);

#endif /* JB_OUTPUT_H */
