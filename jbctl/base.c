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
 * jbctl base build: the base image is built here, as the calling
 * user, with mmdebstrap (root mode as root, unshare mode otherwise, which
 * needs the user's /etc/subuid and /etc/subgid ranges), from Debian
 * packages only.  The daemons never run a package manager: the result is
 * a unified image tarball in a private work directory, which `base
 * import` then hands to jailbeed (jb-mountd opens it as the owner).
 */

#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <sys/xattr.h>

#include <errno.h>
#include <endian.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jbctl.h"
#include "repoconf.h"

#define MMDEBSTRAP	"/usr/bin/mmdebstrap"

/*
 * The host's apt sources for the suite, its -updates and -security, as
 * one-line entries for mmdebstrap (deb822 .sources and one-line files):
 * the image comes from the mirrors the machine already uses, nowhere
 * else.  awk -v s=SUITE, on the files.
 */
static const char mirror_awk[] =
    "function want(x) {\n"
    "\treturn x == s || x == s \"-updates\" || x == s \"-security\"\n"
    "}\n"
    "function emit(u, x) {\n"
    "\tif (want(x) && !seen[u \" \" x]++)\n"
    "\t\tprint \"deb \" u \" \" x \" main\"\n"
    "}\n"
    "function flush(  nu, nx, a, b, j, k) {\n"
    "\tif (t ~ /(^|[ \\t:])deb([ \\t]|$)/ && !off) {\n"
    "\t\tnu = split(u, a, /[ \\t]+/)\n"
    "\t\tnx = split(x, b, /[ \\t]+/)\n"
    "\t\tfor (j = 1; j <= nu; j++)\n"
    "\t\t\tfor (k = 1; k <= nx; k++)\n"
    "\t\t\t\temit(a[j], b[k])\n"
    "\t}\n"
    "\tt = u = x = \"\"\n"
    "\toff = 0\n"
    "}\n"
    "FILENAME != cur { flush(); cur = FILENAME }\n"
    "FILENAME ~ /\\.sources$/ {\n"
    "\tif ($0 ~ /^[ \\t]*$/)\n"
    "\t\tflush()\n"
    "\telse if (tolower($1) == \"types:\")\n"
    "\t\tt = $0\n"
    "\telse if (tolower($1) == \"uris:\") {\n"
    "\t\tu = $0\n"
    "\t\tsub(/^[^:]*:[ \\t]*/, \"\", u)\n"
    "\t} else if (tolower($1) == \"suites:\") {\n"
    "\t\tx = $0\n"
    "\t\tsub(/^[^:]*:[ \\t]*/, \"\", x)\n"
    "\t} else if (tolower($1) == \"enabled:\" && tolower($2) == \"no\")\n"
    "\t\toff = 1\n"
    "\tnext\n"
    "}\n"
    "$1 == \"deb\" {\n"
    "\ti = 2\n"
    "\tif ($2 ~ /^\\[/) {\n"
    "\t\twhile (i < NF && $i !~ /\\]$/)\n"
    "\t\t\ti++\n"
    "\t\ti++\n"
    "\t}\n"
    "\temit($i, $(i + 1))\n"
    "}\n"
    "END { flush() }\n";

/*
 * $1 work dir, $2 mode, $3 suite, $4 Debian arch, $5 Incus arch, $6
 * mirror_awk, $7 base.packages (names checked by the caller).  The image:
 * Debian minbase with the tools a developer expects (bash, curl, git,
 * iproute2, less, netcat-openbsd, openssh-client, procps, sudo, tmux,
 * ca-certificates)
 * and busybox for init and the DHCP client only (its applets are not
 * linked: the real tools are there); user dev (1000:1000, home
 * /home/dev, passwordless sudo; `jbctl new` gives it the owner's ids);
 * git trusts the mounted checkout (safe.directory).  At boot, eth0 gets
 * its address, default route and resolver by DHCP (renewals too), and
 * /etc/hostname and /etc/hosts name the container as Incus named it.
 * No systemd: busybox init halts cleanly on the SIGPWR `incus stop`
 * sends, and a container is ready as soon as its DHCP lease is.
 *
 * $1 is the work directory, the builder's alone (mode 0711: nobody else
 * can create, swap or plant a name in it); it receives only the finished
 * image.  The tree is built in its subdirectory b, which no other local
 * user can enter (mode 0700, and an access entry for the one user that
 * builds in it: see build_dir), so nobody can reach the tree's world
 * writable tmp and var/tmp while it is made and packed.  mmdebstrap
 * makes rootfs there and, in unshare mode, gives it to the build
 * namespace's root; the metadata is written with noclobber, and the
 * result is checked before it is imported.  A failing step is named.
 */
static const char build_script[] =
    "set -eu -o pipefail -C\n"
    "w=$1 mode=$2 suite=$3 arch=$4 uarch=$5 prog=$6 extra=$7\n"
    "b=$w/b\n"
    "step=\"reading the host's apt sources\"\n"
    "trap 'rc=$?; [ $rc -eq 0 ] || echo \"jbctl: base build failed at "
    "$step (exit status $rc; its output is above)\" >&2' EXIT\n"
    "set --\n"
    "for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list "
    "/etc/apt/sources.list.d/*.sources; do\n"
    "  [ -f \"$f\" ] && set -- \"$@\" \"$f\"\n"
    "done\n"
    "m=\n"
    "[ $# -eq 0 ] || m=$(awk -v s=\"$suite\" \"$prog\" \"$@\")\n"
    "[ -n \"$m\" ] || { echo \"jbctl: the host's apt setup has no source "
    "for Debian $suite: add its mirror to /etc/apt/sources.list.d\" >&2; "
    "exit 1; }\n"
    "set --\n"
    "while IFS= read -r l; do set -- \"$@\" \"$l\"; done <<EOF\n"
    "$m\n"
    "EOF\n"
    "inc=bash,busybox,ca-certificates,curl,git,iproute2,less,"
    "netcat-openbsd,openssh-client,procps,sudo,tmux\n"
    "for p in $extra; do inc=$inc,$p; done\n"
    "JB_SETUP='set -e\n"
    "groupadd -g 1000 dev\n"
    "useradd -u 1000 -g 1000 -m -d /home/dev -s /bin/bash dev\n"
    "printf \"dev ALL=(ALL) NOPASSWD:ALL\\n\" > /etc/sudoers.d/jailbee-dev\n"
    "chmod 0440 /etc/sudoers.d/jailbee-dev\n"
    "printf \"[safe]\\n\\tdirectory = *\\n\" > /etc/gitconfig\n"
    "ln -sf /bin/busybox /sbin/init\n"
    "mkdir -p /usr/share/udhcpc\n"
    /*
     * udhcpc's hook, with iproute2: address, routers, resolvers.  It asks
     * every second (-T 1) and tries again a second after five unanswered
     * asks (-A 1), not busybox's 20 s: a container whose first asks are
     * lost while its port joins the bridge has its address at once.
     */
    "cat > /usr/share/udhcpc/default.script <<\"S\"\n"
    "#!/bin/sh\n"
    "case \"$1\" in\n"
    "deconfig)\n"
    "\tip -4 addr flush dev \"$interface\"\n"
    "\tip link set \"$interface\" up\n"
    "\t;;\n"
    "bound|renew)\n"
    "\tnew=\"$ip/${mask:-24}\"\n"
    "\tcur=$(ip -4 -o addr show dev \"$interface\" | "
    "awk \"{ print \\$4; exit }\")\n"
    "\tif [ \"$cur\" != \"$new\" ]; then\n"
    "\t\tip -4 addr flush dev \"$interface\"\n"
    "\t\tip addr add \"$new\" ${broadcast:+broadcast \"$broadcast\"} "
    "dev \"$interface\"\n"
    "\tfi\n"
    "\tfor r in $router; do\n"
    "\t\tip route replace default via \"$r\" dev \"$interface\"\n"
    "\t\tbreak\n"
    "\tdone\n"
    "\tif [ -n \"${dns:-}\" ]; then\n"
    "\t\t{ [ -z \"${domain:-}\" ] || echo \"search $domain\"\n"
    "\t\t  for d in $dns; do echo \"nameserver $d\"; done; } "
    "> /etc/resolv.conf.dhcp\n"
    "\t\tmv -f /etc/resolv.conf.dhcp /etc/resolv.conf\n"
    "\tfi\n"
    "\t;;\n"
    "esac\n"
    "exit 0\n"
    "S\n"
    "chmod 0755 /usr/share/udhcpc/default.script\n"
    /* sudo wants the host name (the container's, set by Incus) known */
    "cat > /usr/local/sbin/jailbee-hostname <<\"S\"\n"
    "#!/bin/sh\n"
    "h=$(hostname)\n"
    "[ \"$(cat /etc/hostname 2>/dev/null)\" = \"$h\" ] || "
    "echo \"$h\" > /etc/hostname\n"
    "grep -q \"[[:space:]]$h\\$\" /etc/hosts || "
    "echo \"127.0.1.1 $h\" >> /etc/hosts\n"
    "S\n"
    "chmod 0755 /usr/local/sbin/jailbee-hostname\n"
    "cat > /etc/inittab <<\"S\"\n"
    "::sysinit:/sbin/ip link set lo up\n"
    "::sysinit:/usr/local/sbin/jailbee-hostname\n"
    "::respawn:/bin/busybox udhcpc -f -S -i eth0 -t 5 -T 1 -A 1 "
    "-s /usr/share/udhcpc/default.script -x hostname:$(hostname)\n"
    "S\n"
    /*
     * base.packages: docker.io runs under init too.  Incus runs the dev
     * user's commands with its own uid and gid and no other groups, so
     * the socket's group is dev's own; dockerd waits until new has given
     * dev the owner's ids (/etc/jailbee-dev-ids), so that group is the
     * final one.
     */
    "if [ -x /usr/sbin/dockerd ]; then\n"
    "  cat > /usr/local/sbin/jailbee-dockerd <<\"S\"\n"
    "#!/bin/sh\n"
    "while [ ! -e /etc/jailbee-dev-ids ]; do sleep 0.2; done\n"
    "exec /usr/sbin/dockerd --group dev\n"
    "S\n"
    "  chmod 0755 /usr/local/sbin/jailbee-dockerd\n"
    "  echo \"::respawn:/usr/local/sbin/jailbee-dockerd\" >> /etc/inittab\n"
    "  usermod -a -G docker dev\n"
    "fi\n"
    "printf \"127.0.0.1 localhost\\n\" > /etc/hosts\n"
    "rm -f /etc/hostname\n"
    "'\n"
    "export JB_SETUP\n"
    "step='[1/3] mmdebstrap'\n"
    "echo \"jbctl: [1/3] mmdebstrap: Debian $suite ($arch), $mode mode"
    "${extra:+, base.packages: $extra}\" >&2\n"
    MMDEBSTRAP " --mode=\"$mode\" --variant=minbase --architectures=\"$arch\" "
    "--include=\"$inc\" "
    "--aptopt='Acquire::Retries \"4\"' "
    "--dpkgopt='path-exclude=/usr/share/man/*' "
    "--dpkgopt='path-exclude=/usr/share/doc/*' "
    "--dpkgopt='path-include=/usr/share/doc/*/copyright' "
    "--dpkgopt='path-exclude=/usr/share/locale/*' "
    "--dpkgopt='path-exclude=/usr/share/info/*' "
    "--customize-hook='chroot \"$1\" /bin/sh -c \"$JB_SETUP\"' "
    "\"$suite\" \"$b/rootfs\" \"$@\"\n"
    "step='writing metadata.yaml'\n"
    "cat > \"$b/metadata.yaml\" <<M\n"
    "architecture: $uarch\n"
    "creation_date: $(date +%s)\n"
    "properties:\n"
    "  description: \"JailBee base (Debian $suite; bash, curl, git, "
    "iproute2, sudo, tmux${extra:+; base.packages: $extra})\"\n"
    "  os: debian\n"
    "  release: $suite\n"
    "  jailbee.packages: \"$extra\"\n"
    "M\n"
    "chmod 0644 \"$b/metadata.yaml\"\n"
    "step='[2/3] packing'\n"
    "echo \"jbctl: [2/3] packing $(du -sh \"$b/rootfs\" 2>/dev/null | "
    "cut -f1) into an image\" >&2\n"
    "ns=\n"
    "[ \"$mode\" = root ] || ns=\"" MMDEBSTRAP " --unshare-helper\"\n"
    "$ns tar -C \"$b\" --numeric-owner -cf - metadata.yaml rootfs |\n"
    "    gzip -1 > \"$w/image.tar.gz\"\n"
    /* the namespace's root empties rootfs; the builder removes the name */
    "step='removing the build tree'\n"
    "$ns rm -rf \"$b/rootfs\" 2>/dev/null || "
    "$ns find \"$b/rootfs\" -mindepth 1 -delete\n"
    "[ ! -d \"$b/rootfs\" ] || rmdir \"$b/rootfs\"\n"
    "rm -f \"$b/metadata.yaml\"\n"
    "rmdir \"$b\"\n"
    /* nothing but the metadata and the tree may go to Incus */
    "step='checking the image'\n"
    "bad=$(tar -tzf \"$w/image.tar.gz\" | grep -v -x -e metadata.yaml "
    "-e rootfs -e 'rootfs/.*' | head -n 1) || true\n"
    "[ -z \"$bad\" ] || { echo \"jbctl: the image holds $bad, outside "
    "rootfs/: not importing it\" >&2; exit 1; }\n"
    "chmod 0644 \"$w/image.tar.gz\"\n";

/* the cleanup after a failed build: the tree may belong to a subuid */
static const char clean_script[] =
    "w=$1 mode=$2\n"
    "if [ -d \"$w/b/rootfs\" ] && [ \"$mode\" != root ]; then\n"
    "  " MMDEBSTRAP " --unshare-helper find \"$w/b/rootfs\" -mindepth 1 "
    "-delete\n"
    "fi\n"
    "rm -rf \"$w\"\n";

static int
run_sh(const char *script, const char *const args[])
{
	const char	*argv[13];
	pid_t	 pid;
	int	 i, status;

	argv[0] = "bash";
	argv[1] = "-c";
	argv[2] = script;
	argv[3] = "jbctl-base";
	for (i = 0; args[i] != NULL && i < 8; i++)
		argv[4 + i] = args[i];
	argv[4 + i] = NULL;
	switch (pid = fork()) {
	case -1:
		return -1;
	case 0:
		/* execv's prototype predates const; it writes nothing */
		execv("/bin/bash", (char **)(uintptr_t)argv);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) == -1)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/* Debian's name for this machine's architecture, and Incus's */
static int
arches(const char **deb, const char **incus)
{
	static struct utsname	u;

	if (uname(&u) == -1)
		return -1;
	*incus = u.machine;
	if (strcmp(u.machine, "x86_64") == 0)
		*deb = "amd64";
	else if (strcmp(u.machine, "aarch64") == 0)
		*deb = "arm64";
	else
		return -1;
	return 0;
}

/* the host's own Debian release, so the image matches its mirror */
static void
suite_of_host(char *buf, size_t len)
{
	char	 line[256];
	FILE	*fp;

	strlcpy(buf, "bookworm", len);
	if ((fp = fopen("/etc/os-release", "r")) == NULL)
		return;
	while (fgets(line, sizeof(line), fp) != NULL)
		if (strncmp(line, "VERSION_CODENAME=", 17) == 0) {
			line[strcspn(line, "\"\n")] = '\0';
			if (line[17] != '\0' && strspn(line + 17,
			    "abcdefghijklmnopqrstuvwxyz") == strlen(line + 17))
				strlcpy(buf, line + 17, len);
		}
	fclose(fp);
}

/*
 * NAME's first range in FILE (/etc/subuid or /etc/subgid), the one
 * mmdebstrap maps the build namespace's root to: its first id in *first.
 * 0 found, 1 none, -1 the file cannot be read (errno).
 */
static int
subid_first(const char *file, const char *name, unsigned long *first)
{
	char		 line[512], *p, *e;
	size_t		 n = strlen(name);
	unsigned long	 id, cnt;
	FILE		*fp;
	int		 rv = 1;

	if ((fp = fopen(file, "re")) == NULL)
		return errno == ENOENT ? 1 : -1;
	while (fgets(line, sizeof(line), fp) != NULL) {
		if (strncmp(line, name, n) != 0 || line[n] != ':')
			continue;
		p = line + n + 1;
		errno = 0;
		id = strtoul(p, &e, 10);
		if (e == p || *e != ':' || errno != 0)
			break;
		p = e + 1;
		cnt = strtoul(p, &e, 10);
		if (e == p || errno != 0 || cnt == 0)
			break;
		*first = id;
		rv = 0;
		break;
	}
	fclose(fp);
	return rv;
}

/* the Linux POSIX access ACL as its extended attribute stores it */
#define ACL_XATTR_VERSION	2
#define ACL_TAG_USER_OBJ	0x01
#define ACL_TAG_USER		0x02
#define ACL_TAG_GROUP_OBJ	0x04
#define ACL_TAG_MASK		0x10
#define ACL_TAG_OTHER		0x20
#define ACL_NO_ID		0xffffffffU

struct acl_xattr_entry {
	uint16_t	tag;
	uint16_t	perm;
	uint32_t	id;
};

struct acl_xattr {
	uint32_t		version;
	struct acl_xattr_entry	e[5];
};

static void
acl_entry(struct acl_xattr_entry *e, int tag, int perm, uint32_t id)
{
	e->tag = htole16((uint16_t)tag);
	e->perm = htole16((uint16_t)perm);
	e->id = htole32(id);
}

/*
 * DIR/b, where the tree is built: mode 0700, and readable and passable
 * for USER alone besides the builder (the build namespace's root in
 * unshare mode; apt's download user in root mode, so that apt keeps its
 * sandbox).  No other local user can enter it, nor reach the tree's
 * world-writable directories through it.
 */
static int
build_dir(const char *dir, uid_t user, int perm)
{
	struct acl_xattr	 a;
	char			 b[PATH_MAX];
	int			 fd, rv = 0;

	if ((size_t)snprintf(b, sizeof(b), "%s/b", dir) >= sizeof(b)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (mkdir(b, 0700) == -1 ||
	    (fd = open(b, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC))
	    == -1)
		return -1;
	if (fchmod(fd, 0700) == -1)
		rv = -1;
	else if (user != (uid_t)-1) {
		memset(&a, 0, sizeof(a));
		a.version = htole32(ACL_XATTR_VERSION);
		acl_entry(&a.e[0], ACL_TAG_USER_OBJ, 7, ACL_NO_ID);
		acl_entry(&a.e[1], ACL_TAG_USER, perm, (uint32_t)user);
		acl_entry(&a.e[2], ACL_TAG_GROUP_OBJ, 0, ACL_NO_ID);
		acl_entry(&a.e[3], ACL_TAG_MASK, perm, ACL_NO_ID);
		acl_entry(&a.e[4], ACL_TAG_OTHER, 0, ACL_NO_ID);
		if (fsetxattr(fd, "system.posix_acl_access", &a, sizeof(a),
		    0) == -1)
			rv = -1;
	}
	close(fd);
	return rv;
}

int
base_build(const char *packages, char *dir, size_t dirlen, char *file,
    size_t filelen)
{
	const char	*tmp, *deb, *inc, *mode;
	char		 suite[64], list[RC_PACKAGES_MAX + 1], *p, *w;
	const char	*args[8];
	struct passwd	*pw;
	unsigned long	 su, sg;
	uid_t		 user = (uid_t)-1;
	int		 rv, perm, ru, rg;

	if (access(MMDEBSTRAP, X_OK) == -1) {
		fprintf(stderr, "jbctl: %s: %s; install it (apt-get install "
		    "mmdebstrap, or regress/setup-host)\n", MMDEBSTRAP,
		    strerror(errno));
		return -1;
	}
	if (arches(&deb, &inc) == -1) {
		fprintf(stderr, "jbctl: base build: this machine's "
		    "architecture is not one the build knows (amd64, arm64)\n");
		return -1;
	}
	/* jailbeed checked them; they go into a shell word list: again */
	if (strlcpy(list, packages, sizeof(list)) >= sizeof(list)) {
		fprintf(stderr, "jbctl: base.packages is too long\n");
		return -1;
	}
	for (p = list; (w = strsep(&p, " ")) != NULL; )
		if (*w != '\0' && !repoconf_valid_package(w)) {
			fprintf(stderr, "jbctl: base.packages: \"%s\" is not a "
			    "Debian package name\n", w);
			return -1;
		}
	suite_of_host(suite, sizeof(suite));
	mode = geteuid() == 0 ? "root" : "unshare";
	if (geteuid() != 0) {
		/* mmdebstrap looks the ranges up by the user's name */
		if ((pw = getpwuid(geteuid())) == NULL) {
			fprintf(stderr, "jbctl: base build: uid %lu has no "
			    "name in the password database\n",
			    (unsigned long)geteuid());
			return -1;
		}
		ru = subid_first("/etc/subuid", pw->pw_name, &su);
		rg = subid_first("/etc/subgid", pw->pw_name, &sg);
		if (ru == -1 || rg == -1) {
			fprintf(stderr, "jbctl: base build: cannot read %s: "
			    "%s\n", ru == -1 ? "/etc/subuid" : "/etc/subgid",
			    strerror(errno));
			return -1;
		}
		if (ru == 1 || rg == 1) {
			fprintf(stderr, "jbctl: base build: as %s (not root) "
			    "it runs mmdebstrap in unshare mode, which needs "
			    "ranges for %s in /etc/subuid and /etc/subgid; %s "
			    "has none (as root: usermod --add-subuids "
			    "100000-165535 --add-subgids 100000-165535 %s)\n",
			    pw->pw_name, pw->pw_name,
			    ru == 1 ? "/etc/subuid" : "/etc/subgid",
			    pw->pw_name);
			return -1;
		}
		user = (uid_t)su;
		perm = 5;
	} else {
		/* apt downloads as _apt when it can reach the tree */
		if ((pw = getpwnam("_apt")) != NULL)
			user = pw->pw_uid;
		perm = 1;
	}
	/* /var/tmp, not a tmpfs: an unpacked system is a few hundred MB */
	if ((tmp = getenv("TMPDIR")) == NULL || *tmp == '\0')
		tmp = "/var/tmp";
	if ((size_t)snprintf(dir, dirlen, "%s/jailbee-base.XXXXXX", tmp) >=
	    dirlen || mkdtemp(dir) == NULL) {
		fprintf(stderr, "jbctl: cannot make a work directory in %s: "
		    "%s\n", tmp, strerror(errno));
		return -1;
	}
	/*
	 * not listable; passable, so that jb-mountd (the owner) can open
	 * the image even when root builds it
	 */
	if (chmod(dir, 0711) == -1) {
		fprintf(stderr, "jbctl: chmod %s: %s\n", dir, strerror(errno));
		base_cleanup(dir);
		return -1;
	}
	if (build_dir(dir, user, perm) == -1) {
		fprintf(stderr, "jbctl: base build: cannot make %s/b private "
		    "to the build: %s%s\n", dir, strerror(errno),
		    errno == EOPNOTSUPP ? " (its file system has no POSIX "
		    "ACLs: set TMPDIR to a directory on one that has)" : "");
		base_cleanup(dir);
		return -1;
	}
	snprintf(file, filelen, "%s/image.tar.gz", dir);
	args[0] = dir;
	args[1] = mode;
	args[2] = suite;
	args[3] = deb;
	args[4] = inc;
	args[5] = mirror_awk;
	args[6] = packages;
	args[7] = NULL;
	if ((rv = run_sh(build_script, args)) != 0) {
		fprintf(stderr, "jbctl: base build failed (status %d)\n", rv);
		base_cleanup(dir);
		return -1;
	}
	fprintf(stderr, "jbctl: [3/3] importing %s\n", file);
	return 0;
}

void
base_cleanup(const char *dir)
{
	const char	*args[3];

	args[0] = dir;
	args[1] = geteuid() == 0 ? "root" : "unshare";
	args[2] = NULL;
	(void)run_sh(clean_script, args);
}

/* --keep FILE: the tarball moves there (a copy across file systems) */
int
base_keep(const char *from, const char *to)
{
	char	 buf[65536];
	ssize_t	 n;
	int	 in, out;

	if (rename(from, to) == 0)
		return 0;
	if (errno != EXDEV) {
		fprintf(stderr, "jbctl: --keep %s: %s\n", to, strerror(errno));
		return -1;
	}
	if ((in = open(from, O_RDONLY | O_CLOEXEC)) == -1 ||
	    (out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644))
	    == -1) {
		fprintf(stderr, "jbctl: --keep %s: %s\n", to, strerror(errno));
		if (in != -1)
			close(in);
		return -1;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n) {
			n = -1;
			break;
		}
	close(in);
	if (close(out) == -1 || n < 0) {
		fprintf(stderr, "jbctl: --keep %s: %s\n", to, strerror(errno));
		return -1;
	}
	return 0;
}
