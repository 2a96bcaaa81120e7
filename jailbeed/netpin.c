/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "netpin.h"

struct relay {
	struct jb_netd_pinned	 ack;
	netpin_cb		 cb;
	void			*arg;
};

/* jb-netd tries again at its next refresh unless this says ok */
static void
pin_ack(struct jb_netd_pinned *ack)
{
	if (imsgev_compose(&children[PROC_NETD].iev, IMSG_NETD_PINNED, 0, 0,
	    -1, ack, sizeof(*ack)) == -1)
		log_warn("cannot tell jb-netd about a pin");
}

static void
relay_done(struct req *r, int ok, const char *err)
{
	struct relay	*rl = r->arg;

	rl->ack.ok = ok;
	(void)strlcpy(rl->ack.err, ok ? "" : err, sizeof(rl->ack.err));
	if (!ok)
		log_debug("%s: /etc/hosts not pinned: %s", rl->ack.name, err);
	pin_ack(&rl->ack);
	if (rl->cb != NULL)
		rl->cb(rl->arg, ok, err);
	free(rl);
}

void
netpin_relay(struct imsg *imsg, netpin_cb cb, void *arg)
{
	struct jb_hosts_pin	*pin;
	struct relay		*rl;

	if ((pin = malloc(sizeof(*pin))) == NULL ||
	    (rl = calloc(1, sizeof(*rl))) == NULL)
		fatal("%s", __func__);
	if (imsg_get_data(imsg, pin, sizeof(*pin)) == -1 ||
	    pin->len >= sizeof(pin->text))
		fatalx("jb-netd: malformed NETD_PIN");
	pin->name[sizeof(pin->name) - 1] = '\0';
	(void)strlcpy(rl->ack.name, pin->name, sizeof(rl->ack.name));
	rl->ack.gen = pin->gen;
	rl->cb = cb;
	rl->arg = arg;
	if (req_send(PROC_INCUS, IMSG_INCUS_HOSTS, pin, sizeof(*pin), -1,
	    NULL, relay_done, rl) == NULL) {
		struct req	r;

		memset(&r, 0, sizeof(r));
		r.arg = rl;
		relay_done(&r, 0, "cannot reach jb-incus");
	}
	free(pin);
}

int
netpin_unasked(struct imsg *imsg)
{
	if (imsg_get_len(imsg) != sizeof(struct jb_hosts_pin))
		return -1;
	netpin_relay(imsg, NULL, NULL);
	return 0;
}

/* one refresh: jb-netd's answer, and each pin it asked for, written */
struct refresh {
	int		 pending;
	int		 ok;
	char		 err[JB_ERR_TEXT_MAX];
	size_t		 lines;		/* in the last block sent */
	int		 no_block;	/* the file has none: "" is no write */
	netpin_refresh_cb cb;
	void		*arg;
};

static void
refresh_step(struct refresh *rf, int ok, const char *err)
{
	if (!ok && rf->ok) {
		rf->ok = 0;
		(void)strlcpy(rf->err, err != NULL ? err : "failed",
		    sizeof(rf->err));
	}
	if (--rf->pending > 0)
		return;
	if (rf->cb != NULL)
		rf->cb(rf->arg, rf->ok, rf->ok ? NULL : rf->err, rf->lines);
	free(rf);
}

static void
refresh_pinned(void *arg, int ok, const char *err)
{
	refresh_step(arg, ok, err);
}

static void
refresh_msg(struct req *r, struct imsg *imsg)
{
	struct refresh		*rf = r->arg;
	struct jb_hosts_pin	*pin;
	struct jb_netd_pinned	 ack;
	size_t			 i;

	if (imsg_get_type(imsg) != IMSG_NETD_PIN)
		return;
	if ((pin = malloc(sizeof(*pin))) == NULL)
		fatal("%s", __func__);
	if (imsg_get_data(imsg, pin, sizeof(*pin)) == -1 ||
	    pin->len >= sizeof(pin->text))
		fatalx("jb-netd: malformed NETD_PIN");
	for (rf->lines = 0, i = 0; i < pin->len; i++)
		if (pin->text[i] == '\n')
			rf->lines++;
	/* no block to write where the file has none: it is as pinned */
	if (pin->len == 0 && rf->no_block) {
		memset(&ack, 0, sizeof(ack));
		pin->name[sizeof(pin->name) - 1] = '\0';
		(void)strlcpy(ack.name, pin->name, sizeof(ack.name));
		ack.gen = pin->gen;
		ack.ok = 1;
		pin_ack(&ack);
		free(pin);
		return;
	}
	free(pin);
	rf->pending++;
	netpin_relay(imsg, refresh_pinned, rf);
}

static void
refresh_done(struct req *r, int ok, const char *err)
{
	if (!ok)
		log_debug("pool refresh: %s", err);
	refresh_step(r->arg, ok, err);
}

void
netpin_refresh(const char *name, int no_block, netpin_refresh_cb cb,
    void *arg)
{
	struct jb_incus_target	 t;
	struct refresh		*rf;

	if ((rf = calloc(1, sizeof(*rf))) == NULL)
		fatal("%s", __func__);
	rf->pending = 1;		/* jb-netd's answer */
	rf->ok = 1;
	rf->no_block = no_block;
	rf->cb = cb;
	rf->arg = arg;
	memset(&t, 0, sizeof(t));
	(void)strlcpy(t.name, name, sizeof(t.name));
	if (req_send(PROC_NETD, IMSG_NETD_REFRESH, &t, sizeof(t), -1,
	    refresh_msg, refresh_done, rf) == NULL) {
		log_warnx("%s: cannot ask jb-netd to pin /etc/hosts", name);
		refresh_step(rf, 0, "cannot reach jb-netd");
	}
}
