/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <sha2.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "authkeys.h"
#include "b64.h"

static const char *const key_types[] = {
	"ssh-ed25519", "ecdsa-sha2-nistp256", "ecdsa-sha2-nistp384",
	"ecdsa-sha2-nistp521", "ssh-rsa", NULL
};

/*
 * FIDO security keys (sk-*) are refused: their signatures carry a
 * user-presence flag that says whether the key was touched, and libssh
 * 0.10 neither checks it nor hands it to a server's callback, so a key
 * made with no-touch-required, or malware with the authenticator, would
 * log in unseen.
 */
int
authkey_type_fido(const char *t)
{
	return strncmp(t, "sk-", 3) == 0;
}

int
authkey_type_ok(const char *t)
{
	int	i;

	for (i = 0; key_types[i] != NULL; i++)
		if (strcmp(t, key_types[i]) == 0)
			return 1;
	return 0;
}

static int
b64val(char c)
{
	const char	*p;

	if (c == '\0' || (p = strchr(b64_alphabet, c)) == NULL)
		return -1;
	return (int)(p - b64_alphabet);
}

int
authkey_b64_decode(const char *s, size_t slen, uint8_t *out, size_t outlen,
    size_t *n)
{
	size_t	i, o = 0;
	int	v[4], k, pad;

	if (slen == 0 || slen % 4 != 0)
		return -1;
	for (i = 0; i < slen; i += 4) {
		pad = 0;
		for (k = 0; k < 4; k++) {
			if (s[i + k] == '=' && i + 4 == slen && k >= 2) {
				v[k] = 0;
				pad++;
				continue;
			}
			if (pad || (v[k] = b64val(s[i + k])) == -1)
				return -1;
		}
		if (o + 3 - pad > outlen)
			return -1;
		out[o++] = (uint8_t)(v[0] << 2 | v[1] >> 4);
		if (pad < 2)
			out[o++] = (uint8_t)((v[1] & 0xf) << 4 | v[2] >> 2);
		if (pad < 1)
			out[o++] = (uint8_t)((v[2] & 0x3) << 6 | v[3]);
	}
	*n = o;
	return 0;
}

void
authkey_fingerprint(const uint8_t *blob, size_t len, char *out,
    size_t outlen)
{
	SHA2_CTX	ctx;
	uint8_t		d[SHA256_DIGEST_LENGTH];
	char		buf[AUTHKEY_FP_MAX];
	size_t		o;

	SHA256Init(&ctx);
	SHA256Update(&ctx, blob, len);
	SHA256Final(d, &ctx);
	o = strlcpy(buf, "SHA256:", sizeof(buf));
	(void)b64_encode(d, sizeof(d), buf + o, sizeof(buf) - o, 0);
	strlcpy(out, buf, outlen);
}

int
authkey_parse(const char *line, struct authkey *k, char *err, size_t errlen)
{
	const char	*p = line, *t, *b;
	size_t		 tl, bl, sl;

	memset(k, 0, sizeof(*k));
	p += strspn(p, " \t");
	if (*p == '\0' || *p == '#')
		return 1;
	t = p;
	tl = strcspn(t, " \t");
	if (tl > 3 && authkey_type_fido(t)) {
		snprintf(err, errlen, "key type %.*s is a FIDO security key: "
		    "refused, since jb-sshd cannot check that the key was "
		    "touched (user presence); use an ssh-ed25519 key",
		    (int)(tl > 40 ? 40 : tl), t);
		return -1;
	}
	if (tl == 0 || tl >= sizeof(k->type)) {
		snprintf(err, errlen, "not a public key line (TYPE BASE64 "
		    "[COMMENT])");
		return -1;
	}
	memcpy(k->type, t, tl);
	if (!authkey_type_ok(k->type)) {
		snprintf(err, errlen, "key type %.*s is not supported (one of "
		    "ssh-ed25519, ecdsa-sha2-nistp256/384/521, ssh-rsa; "
		    "options before the type are not accepted)",
		    (int)(tl > 40 ? 40 : tl), t);
		return -1;
	}
	b = t + tl;
	b += strspn(b, " \t");
	bl = strcspn(b, " \t");
	if (authkey_b64_decode(b, bl, k->blob, sizeof(k->blob),
	    &k->bloblen) == -1) {
		snprintf(err, errlen, "the key of type %s is not valid base64 "
		    "(or longer than %d bytes)", k->type, AUTHKEY_BLOB_MAX);
		return -1;
	}
	/* the blob starts with its own type, as a length-prefixed string */
	if (k->bloblen < 4 || (sl = (size_t)k->blob[0] << 24 |
	    (size_t)k->blob[1] << 16 | (size_t)k->blob[2] << 8 |
	    k->blob[3]) != tl || k->bloblen < 4 + sl ||
	    memcmp(k->blob + 4, k->type, tl) != 0) {
		snprintf(err, errlen, "the key data does not hold a %s key",
		    k->type);
		return -1;
	}
	p = b + bl;
	p += strspn(p, " \t");
	strlcpy(k->comment, p, sizeof(k->comment));
	return 0;
}

int
authkeys_contains(const char *path, uid_t uid, const char *type,
    const uint8_t *blob, size_t len, char *err, size_t errlen)
{
	struct authkey	 k;
	struct stat	 st;
	FILE		*fp;
	char		 line[AUTHKEY_LINE_MAX], e[256];
	int		 fd, found = 0;

	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) == -1) {
		if (errno == ENOENT)
			return 0;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
	    (st.st_uid != uid && st.st_uid != 0) ||
	    (st.st_mode & 022) != 0) {
		snprintf(err, errlen, "%s: not a regular file of the owner's "
		    "writable by the owner alone; keys in it are ignored "
		    "(chmod 600 it)", path);
		close(fd);
		return -1;
	}
	if ((fp = fdopen(fd, "r")) == NULL) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	while (!found && fgets(line, sizeof(line), fp) != NULL) {
		line[strcspn(line, "\r\n")] = '\0';
		if (authkey_parse(line, &k, e, sizeof(e)) != 0)
			continue;
		found = strcmp(k.type, type) == 0 && k.bloblen == len &&
		    memcmp(k.blob, blob, len) == 0;
	}
	fclose(fp);
	return found;
}
