/*
 * Copyright (c) 2026 The JailBee authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES.
 */

#ifndef JB_AUTHKEYS_H
#define JB_AUTHKEYS_H

#include <stddef.h>
#include <sys/types.h>

#include <stdint.h>

/*
 * The owner's SSH keys for jb-sshd, one OpenSSH public key a line:
 * "TYPE BASE64 [COMMENT]".  No options field: every key has the same
 * rights, so there is nothing to say per key.  jbctl writes the
 * file; the parent reads it at every offered key, so a removed key is
 * refused at its next connection.
 */
#define AUTHKEY_BLOB_MAX	2048	/* ed25519 51, rsa-8192 ~1 KiB */
#define AUTHKEY_FP_MAX		52	/* "SHA256:" + 43 + NUL */
#define AUTHKEY_LINE_MAX	4096

struct authkey {
	char		type[32];
	uint8_t		blob[AUTHKEY_BLOB_MAX];
	size_t		bloblen;
	char		comment[128];
};

/* key types accepted; others are refused when added */
int	authkey_type_ok(const char *);
/* a FIDO security key type (sk-*): refused everywhere */
int	authkey_type_fido(const char *);
/*
 * One line (no newline) into *k.  0, 1 for a blank or comment line, or
 * -1 with a sentence in err.
 */
int	authkey_parse(const char *line, struct authkey *k, char *err,
	    size_t errlen);
/* RFC 4648 base64, padding required; -1 on anything else */
int	authkey_b64_decode(const char *s, size_t slen, uint8_t *out,
	    size_t outlen, size_t *n);
/* as ssh-keygen -l prints it: "SHA256:" and unpadded base64 */
void	authkey_fingerprint(const uint8_t *blob, size_t len, char *out,
	    size_t outlen);
/*
 * Is the key (type, blob) in the file at path?  1 yes, 0 no, -1 the
 * file cannot be trusted or read (err says why; a missing file is 0).
 * The file must belong to uid or root and be writable by nobody else.
 */
int	authkeys_contains(const char *path, uid_t uid, const char *type,
	    const uint8_t *blob, size_t len, char *err, size_t errlen);

#endif /* JB_AUTHKEYS_H */
