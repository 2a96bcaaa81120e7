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
 * Which image a checkout's containers start from, and whether Incus has
 * it: `new` looks before it makes anything, and tells jbctl what to build
 * when the alias is missing; `base build` asks for the same answer.
 */

#include <stdlib.h>
#include <string.h>

#include "base_spec.h"
#include "log.h"

struct spec_ask {
	struct job		*job;
	struct jb_base_spec	 spec;
	base_spec_next		 next;
};

static void
spec_image(struct req *r, struct imsg *imsg)
{
	struct spec_ask	*a = r->arg;
	struct jb_image	 im;

	if (imsg_get_type(imsg) != IMSG_INCUS_IMAGE ||
	    imsg_get_data(imsg, &im, sizeof(im)) == -1)
		fatalx("jb-incus: malformed IMAGE");
	a->spec.exists = 1;
}

static void
spec_done(struct req *r, int ok, const char *err)
{
	struct spec_ask	*a = r->arg;
	struct job	*job = a->job;
	struct jb_base_spec spec = a->spec;
	base_spec_next	 next = a->next;

	free(a);
	if (!ok) {
		job_end(job, 0, "%s", err);
		return;
	}
	next(job, &spec);
}

void
base_spec_ask(struct job *job, const struct repoconf *conf,
    const char *alias, const char *packages, base_spec_next next)
{
	struct spec_ask		*a;
	struct jb_incus_target	 t;

	if ((a = calloc(1, sizeof(*a))) == NULL) {
		job_end(job, 0, "out of memory");
		return;
	}
	a->job = job;
	a->next = next;
	if (alias == NULL)
		alias = conf != NULL ? conf->base_alias : RC_DEF_ALIAS;
	if (strlcpy(a->spec.alias, alias, sizeof(a->spec.alias)) >=
	    sizeof(a->spec.alias)) {
		free(a);
		job_end(job, 0, "image alias %s is too long", alias);
		return;
	}
	if (packages != NULL)
		(void)strlcpy(a->spec.packages, packages,
		    sizeof(a->spec.packages));
	else if (conf != NULL)
		(void)strlcpy(a->spec.packages, conf->base_packages,
		    sizeof(a->spec.packages));
	memset(&t, 0, sizeof(t));
	(void)strlcpy(t.name, a->spec.alias, sizeof(t.name));
	if (req_send(PROC_INCUS, IMSG_INCUS_IMAGE_ALIAS, &t, sizeof(t), -1,
	    spec_image, spec_done, a) == NULL) {
		free(a);
		job_end(job, 0, "cannot reach jb-incus");
	}
}

int
base_spec_send(struct job *job, const struct jb_base_spec *spec)
{
	return job_reply(job, IMSG_CTL_BASE_SPEC, spec, sizeof(*spec), -1);
}
