# JailBee: top-level GNU Makefile.
#
#   make [PREFIX=/usr/local]     build into $(O)/ (default build/)
#   make install [DESTDIR=]      binaries, libexec children, man pages, units
#   make check                   integration tests on the release build,
#                                unit tests and fuzzers under ASan/UBSan
#   make fuzz                    libFuzzer targets (clang), FUZZTIME seconds each
#   make bench                   benchmarks beside the incus CLI (root)
#   make deps                    install what building and testing need
#   make up [OWNER=name]         deps, build, install, start the suite
#   make clean

PREFIX		?= /usr/local
BINDIR		?= $(PREFIX)/bin
SBINDIR		?= $(PREFIX)/sbin
LIBEXECDIR	?= $(PREFIX)/libexec/jailbee
MANDIR		?= $(PREFIX)/share/man
SYSCONFDIR	?= /etc
UNITDIR		?= /lib/systemd/system
# where jailbeed's socket and, from the rc script, its pid file live
RUNDIR		?= /run/jailbee
O		?= build
VERSION		:= 0.1.0

CC		?= cc
PKGS		:= libbsd-overlay libevent yaml-0.1 json-c libcap-ng libseccomp
# jb-sshd alone speaks SSH; libmd gives the key fingerprints their SHA-256
PKGS		+= libmd
ALL_PKGS	:= $(PKGS) libssh libevent_openssl openssl libnftables \
		   libnetfilter_conntrack ncursesw

# make deps, make up (which runs make deps first) and make clean build
# nothing: they must work, and stay quiet, before the libraries are there
NOBUILD_GOALS	:= deps up clean
ifneq ($(filter-out $(NOBUILD_GOALS),$(or $(MAKECMDGOALS),all)),)
PKGS_MISSING	:= $(shell if command -v pkg-config > /dev/null 2>&1; then \
		   for p in $(ALL_PKGS); do \
		   pkg-config --exists $$p 2> /dev/null || echo $$p; done; \
		   else echo pkg-config; fi)
ifeq ($(PKGS_MISSING),pkg-config)
$(error pkg-config is not installed, and likely nor are the libraries the build needs: make deps (as root) installs them all)
else ifneq ($(PKGS_MISSING),)
$(error pkg-config finds no $(PKGS_MISSING): make deps (as root) installs what the build and the tests need)
endif
SSH_LIBS	:= $(shell pkg-config --libs libssh)
# jbctl dashboard draws with ncurses (its wide-character build)
CURSES_LIBS	:= $(shell pkg-config --libs ncursesw)
PKG_CFLAGS	:= $(shell pkg-config --cflags $(PKGS))
PKG_LIBS	:= $(shell pkg-config --libs $(PKGS))
TLS_CFLAGS	:= $(shell pkg-config --cflags libevent_openssl openssl)
# OpenSSL for an https Incus only (jb-incus-tls, the test drivers); jb-incus
# itself talks to the local socket, its digests (websocket accept, image
# fingerprints) from libmd
TLS_LIBS	:= $(shell pkg-config --libs libevent_openssl openssl) -lmd
NFT_LIBS	:= $(shell pkg-config --libs libnftables libnetfilter_conntrack)
# the unit tests' only: a build without them needs no atf
ATF_CFLAGS	:= $(shell pkg-config --cflags atf-c 2> /dev/null)
ATF_LIBS	:= $(shell pkg-config --libs atf-c 2> /dev/null) -lutil
endif

# relayd's warning list plus -Wextra, errors always
WARNINGS	:= -Wall -Wextra -Werror -Wstrict-prototypes -Wmissing-prototypes \
		   -Wmissing-declarations -Wshadow -Wpointer-arith -Wcast-qual \
		   -Wsign-compare -Wformat=2 -Wno-unused-parameter
CFLAGS		?= -O2 -g
# each program maps only the libraries it calls: less memory per process
LDFLAGS		+= -Wl,--as-needed
# and holds only the functions and data it reaches: of libcommon's files
# it links, the rest is left out (pages of it were read in with the rest)
CFLAGS		+= -ffunction-sections -fdata-sections
LDFLAGS		+= -Wl,--gc-sections
ifeq ($(SAN),1)
CFLAGS		+= -fsanitize=address,undefined -fno-omit-frame-pointer \
		   -fno-sanitize-recover=undefined
LDFLAGS		+= -fsanitize=address,undefined
endif
# each program sees libcommon's headers and its own (its own folder, by
# #include "..."); only tests reach into a program, through TEST_CPPFLAGS
CPPFLAGS	+= -D_GNU_SOURCE -Ilibcommon $(PKG_CFLAGS) $(TLS_CFLAGS) \
		   -DLIBEXECDIR='"$(LIBEXECDIR)"' -DJB_VERSION='"$(VERSION)"'
TEST_CPPFLAGS	 = -Ijailbeed -Ijb-incus -Ijb-netd -Ijb-mountd -Ijb-sshd -Ijbctl \
		   -Ijb-egress
ALL_CFLAGS	 = $(CFLAGS) $(WARNINGS) -std=gnu11 -MMD -MP

COMMON_SRCS	:= libcommon/log.c libcommon/imsg.c libcommon/imsgev.c \
		   libcommon/proc.c libcommon/privdrop.c \
		   libcommon/selfstat.c libcommon/config.c \
		   libcommon/yamltree.c libcommon/duration.c \
		   libcommon/cmdtab.c libcommon/child.c libcommon/jb_msg.c \
		   libcommon/testhook.c libcommon/memtrim.c libcommon/repoconf.c \
		   libcommon/repoconf_compat.c libcommon/repoconf_agents.c \
		   libcommon/repoconf_autostart.c \
		   libcommon/sandbox-linux.c libcommon/sandbox_procs.c \
		   libcommon/sshargv.c libcommon/authkeys.c libcommon/b64.c \
		   libcommon/sshpolicy.c libcommon/mountspec.c \
		   libcommon/hostspin.c libcommon/addralloc.c libcommon/nicname.c \
		   libcommon/errtext.c libcommon/gate.c \
		   libcommon/gitident.c \
		   libcommon/gitref.c libcommon/termsafe.c libcommon/termrelay.c \
		   libcommon/sockdir.c libcommon/portspec.c libcommon/reporeg.c \
		   libcommon/config_print.c libcommon/auditrec.c \
		   libcommon/output.c libcommon/names.c \
		   libcommon/atomicfile.c libcommon/srcclass.c \
		   libcommon/rlimits.c libcommon/ctrlimits.c \
		   libcommon/diskq.c libcommon/clusterpin.c libcommon/guardtips.c \
		   libcommon/placepick.c libcommon/membox.c
# SFTP (R45-R51): the virtual tree's paths, jb-sftp's records
COMMON_SRCS	+= libcommon/sftppath.c libcommon/sftprec.c
COMMON_SRCS	+= libcommon/secrec.c
# the GitHub integration's keys
COMMON_SRCS	+= libcommon/repoconf_github.c
# secrets: values held on the host, placeholders inside
COMMON_SRCS	+= libcommon/repoconf_secrets.c
JAILBEED_SRCS	:= jailbeed/jailbeed.c jailbeed/children.c \
		   jailbeed/control.c jailbeed/request.c jailbeed/job.c \
		   jailbeed/checkout.c jailbeed/capture.c jailbeed/cmd_ls.c \
		   jailbeed/cmd_action.c jailbeed/cmd_exec.c \
		   jailbeed/cmd_new.c jailbeed/cmd_config.c \
		   jailbeed/cmd_init.c jailbeed/cmd_base.c jailbeed/sshd.c \
		   jailbeed/mounts.c jailbeed/cmd_mount.c \
		   jailbeed/mount_ssh.c jailbeed/github.c jailbeed/cmd_net.c \
		   jailbeed/netsync.c jailbeed/policyrec.c jailbeed/netfollow.c jailbeed/netwhere.c jailbeed/netpin.c jailbeed/base_spec.c \
		   jailbeed/ssh_gate.c jailbeed/sshsnap.c jailbeed/reload.c jailbeed/registry.c jailbeed/srcguard.c jailbeed/reaper.c \
		   jailbeed/agent_run.c jailbeed/netgrant.c jailbeed/autostart_run.c \
		   jailbeed/hostcas.c \
		   jailbeed/escalation.c \
		   jailbeed/ports.c jailbeed/cmd_port.c jailbeed/netstatus.c jailbeed/netlog.c \
		   jailbeed/cmd_doctor.c jailbeed/audit.c
JAILBEED_SRCS	+= jailbeed/sftp.c
JAILBEED_SRCS	+= jailbeed/stepmount.c jailbeed/agent_shared.c
JAILBEED_SRCS	+= jailbeed/statedir.c jailbeed/checkout_dev.c \
		   jailbeed/clone_bridge.c jailbeed/guardhost.c
JAILBEED_SRCS	+= jailbeed/limits_run.c
# the cluster mailbox: requests to and answers from the other members
JAILBEED_SRCS	+= jailbeed/membox.c
JAILBEED_SRCS	+= jailbeed/egress.c
# secrets: files read, the CA put in, the values to jb-egress
JAILBEED_SRCS	+= jailbeed/secrets.c jailbeed/cmd_secret.c
JBINCUS_SRCS	:= jb-incus/jb-incus.c jb-incus/http_parse.c jb-incus/http_client.c jb-incus/incus.c \
		   jb-incus/ws.c jb-incus/exec.c jb-incus/ops.c \
		   jb-incus/ops_action.c jb-incus/ops_create.c jb-incus/ops_place.c \
		   jb-incus/ops_exec.c jb-incus/ops_image.c \
		   jb-incus/ops_disk.c jb-incus/ops_hosts.c \
		   jb-incus/ops_addrs.c \
		   jb-incus/ops_port.c jb-incus/ops_limits.c
JBINCUS_SRCS	+= jb-incus/ops_sftp.c jb-incus/bound.c jb-incus/ops_restore.c
JBINCUS_SRCS	+= jb-incus/ops_policy.c jb-incus/events.c jb-incus/evparse.c
# the cluster mailbox in a member's configuration
JBINCUS_SRCS	+= jb-incus/ops_membox.c
# the last list of instances, kept while the event stream is open
JBINCUS_SRCS	+= jb-incus/instcache.c
JBNETD_SRCS	:= jb-netd/jb-netd.c jb-netd/policy.c jb-netd/nftgen.c \
		   jb-netd/netd_state.c jb-netd/netd_nft.c \
		   jb-netd/resolver.c jb-netd/netd_ct.c jb-netd/netd_repos.c \
		   jb-netd/pool.c jb-netd/netd_pool.c \
		   jb-netd/resolver_tcp.c jb-netd/dnswire.c jb-netd/admitted.c \
		   jb-netd/blocked.c jb-netd/siphash.c
JBNETD_SRCS	+= jb-netd/refused.c jb-netd/netd_refused.c jb-netd/nlset.c
JBNETD_SRCS	+= jb-netd/netd_store.c jb-netd/netd_deadline.c jb-netd/netd_egress.c
JBNETD_SRCS	+= jb-netd/privnet.c jb-netd/upstream.c jb-netd/netd_notice.c
# what jb-netd tells the egress gateway
JBNETD_SRCS	+= jb-netd/netd_gw.c jb-netd/gwknown.c
# a leftover host interface under a new container's NIC name
JBNETD_SRCS	+= jb-netd/nicstale.c
# the policy Incus holds, read back at start and on its events
JBNETD_SRCS	+= jb-netd/netd_incus.c jb-netd/netd_record.c
# the explicit proxy's names, asked upstream for jb-egress
JBNETD_SRCS	+= jb-netd/netd_proxy.c jb-netd/netd_gate.c
# the egress gateway: its parsers, its policy, its connections; it reads
# egress_allow entries with jb-netd's own parser
JBEGRESS_SRCS	:= jb-egress/jb-egress.c jb-egress/conn.c jb-egress/gwpolicy.c \
		   jb-egress/tlshello.c jb-egress/httphead.c jb-netd/policy.c
# the explicit proxy
JBEGRESS_SRCS	+= jb-egress/proxy.c jb-egress/proxyhead.c jb-egress/pump.c
JBEGRESS_SRCS	+= jb-egress/subst.c
# secrets: the container's CA, the terminated connections
JBEGRESS_SRCS	+= jb-egress/ca.c jb-egress/mitm.c jb-egress/egsecrets.c \
		   jb-egress/mitmconn.c jb-egress/tlsconf.c
JBMOUNTD_SRCS	:= jb-mountd/jb-mountd.c jb-mountd/gitdescribe.c jb-mountd/image.c \
		   jb-mountd/mount.c jb-mountd/deadline.c jb-mountd/sshseed.c \
		   jb-mountd/gitconf.c jb-mountd/gituser.c
JBMOUNTD_SRCS	+= jb-mountd/shared.c
# secrets: a secret's file, read as the owner
JBMOUNTD_SRCS	+= jb-mountd/secretfile.c
JBSSHD_SRCS	:= jb-sshd/jb-sshd.c jb-sshd/session.c jb-sshd/spawner.c
JBSSHD_SRCS	+= jb-sshd/sftp.c
# the dashboard of an SSH session: jbctl's keys and screen, drawn with
# vtcurses (ANSI, no terminfo: the session has no file to read)
JBSSHD_SRCS	+= jb-sshd/sshdash.c jbctl/vtcurses.c
JBSSHD_DASH	:= jbctl/dashui.c jbctl/dashdraw.c jbctl/dashdata.c
JBCTL_SRCS	:= jbctl/jbctl.c jbctl/ctlrun.c jbctl/local.c \
		   jbctl/term.c jbctl/base.c jbctl/sshkeys.c jbctl/git.c \
		   jbctl/dashui.c jbctl/dashdraw.c jbctl/dashdata.c jbctl/dashact.c \
		   jbctl/dashloop.c
# host git for the git bridge: jbctl's, and jb-gitd's over SSH
COMMON_SRCS	+= libcommon/gitrun.c libcommon/gitpacks.c
# git's remote helper for jailbee::NAME, installed beside jbctl
GITREMOTE_SRCS	:= jbctl/gitremote.c jbctl/ctlrun.c jbctl/term.c
# jbctl reload binds a moved remote.ssh.listen for jailbeed
JBCTL_SRCS	+= jbctl/rebind.c
GITREMOTE_SRCS	+= jbctl/rebind.c

PROGS		:= jailbeed jb-incus jb-netd jb-mountd jb-sshd jbctl \
		   git-remote-jailbee
# jb-incus with https: jailbeed runs it instead when incus.url is https
PROGS		+= jb-incus-tls
# the SFTP helper jailbeed pushes into containers: static, for any libc
PROGS		+= jb-sftp
# the git bridge's host writer over SSH (runs git-remote-jailbee beside it)
JBGITD_SRCS	:= jb-gitd/jb-gitd.c jb-gitd/worker.c jb-gitd/into.c \
		   jb-gitd/bundle.c jb-gitd/answer.c
JAILBEED_SRCS	+= jailbeed/cmd_git.c
PROGS		+= jb-gitd
PROGS		+= jb-egress
LIBCOMMON	:= $(O)/libcommon.a

TESTLIBS	 = $(O)/libincus.a $(O)/libegress.a $(O)/libnetd.a $(O)/libjbctl.a \
		   $(O)/libmountd.a
UNIT_TESTS	:= t_imsg t_config t_duration t_cmdtab t_http t_policy \
		   t_repoconf t_term t_ws t_repo t_sandbox t_image \
		   t_httpbody t_sshargv t_sshpolicy t_authkeys t_mountspec \
		   t_netd_state t_netd_repos t_hostspin t_pool t_dnswire \
		   t_admitted t_gwknown t_addralloc t_gitconf t_sockdir t_gitref t_gitrun t_gitpacks t_termsafe \
		   t_portspec t_blocked t_reporeg t_confgold t_auditrec t_confkeys
FUZZERS		:= fuzz_imsg fuzz_config fuzz_http fuzz_policy fuzz_repoconf \
		   fuzz_ws fuzz_image fuzz_sshargv fuzz_mountspec \
		   fuzz_netd_state fuzz_netd_repos fuzz_hostspin fuzz_pool \
		   fuzz_dnswire fuzz_gitconf fuzz_gitref fuzz_termsafe fuzz_reporeg \
		   fuzz_auditrec fuzz_gitanswer
UNIT_TESTS	+= t_sftppath
UNIT_TESTS	+= t_jbmsg t_names t_atomicfile
FUZZERS		+= fuzz_sftppath fuzz_sftprec
UNIT_TESTS	+= t_refused t_nlset t_nicstale
UNIT_TESTS	+= t_incusbound
UNIT_TESTS	+= t_ctlrun
UNIT_TESTS	+= t_privnet
UNIT_TESTS	+= t_egress
UNIT_TESTS	+= t_netd_record t_evparse t_instcache
UNIT_TESTS	+= t_proxyhead
UNIT_TESTS	+= t_pump
UNIT_TESTS	+= t_vtcurses
UNIT_TESTS	+= t_diskq
UNIT_TESTS	+= t_clusterpin t_guardtips t_placepick t_gatekey t_membox
FUZZERS		+= fuzz_guardtips fuzz_gatekey fuzz_membox
FUZZERS		+= fuzz_refused fuzz_nlset fuzz_nicstale
FUZZERS		+= fuzz_tlshello fuzz_httphead
FUZZERS		+= fuzz_netd_record fuzz_evparse
FUZZERS		+= fuzz_proxyhead
# secrets: placeholders replaced in request heads
UNIT_TESTS	+= t_subst t_mitm t_secretfile
UNIT_TESTS	+= t_secrec
FUZZERS		+= fuzz_subst
FUZZERS		+= fuzz_secrec
FUZZERS		+= fuzz_vtcurses
FUZZTIME	?= 20

# objects are rebuilt when the flags change (SAN, PREFIX...)
FLAGS_STAMP	:= $(O)/.build-flags
FLAGS_NOW	:= $(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(LDFLAGS)
ifneq ($(filter-out $(NOBUILD_GOALS),$(or $(MAKECMDGOALS),all)),)
ifneq ($(FLAGS_NOW),$(file <$(FLAGS_STAMP)))
$(shell mkdir -p $(O))
$(file >$(FLAGS_STAMP),$(FLAGS_NOW))
endif
endif

objs		= $(patsubst %.c,$(O)/obj/%.o,$(1))

.PHONY: all install check cluster-check unit-build unit-tests integ-build fuzz fuzz-build \
	fuzz-check bench clean deps up install-rc
all: $(addprefix $(O)/,$(PROGS))

$(O)/obj/%.o: %.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -c -o $@ $<

$(LIBCOMMON): $(call objs,$(COMMON_SRCS))
	rm -f $@
	ar rcs $@ $^

$(O)/jailbeed: $(call objs,$(JAILBEED_SRCS)) $(LIBCOMMON)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS)
$(O)/jb-incus: $(call objs,$(JBINCUS_SRCS)) $(LIBCOMMON)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) -lmd
$(O)/obj/tls/%.o: %.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -DJB_INCUS_TLS $(ALL_CFLAGS) -c -o $@ $<
$(O)/jb-incus-tls: $(call objs,$(filter-out jb-incus/http_client.c,$(JBINCUS_SRCS))) \
    $(O)/obj/tls/jb-incus/http_client.o $(LIBCOMMON)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) $(TLS_LIBS)
$(O)/jb-netd: $(call objs,$(JBNETD_SRCS)) $(LIBCOMMON)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) $(NFT_LIBS)
$(O)/jb-mountd: $(call objs,$(JBMOUNTD_SRCS)) $(LIBCOMMON)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS)
$(O)/obj/jb-sshd/%.o: CPPFLAGS += -Ijbctl
$(O)/obj/vt/%.o: %.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -DJB_DASH_VT -Ijbctl $(ALL_CFLAGS) -c -o $@ $<
$(O)/jb-sshd: $(call objs,$(JBSSHD_SRCS)) \
    $(patsubst %.c,$(O)/obj/vt/%.o,$(JBSSHD_DASH)) $(LIBCOMMON)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) $(SSH_LIBS)
$(O)/jbctl: $(call objs,$(JBCTL_SRCS)) $(LIBCOMMON)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) $(CURSES_LIBS)
$(O)/jb-gitd: $(call objs,$(JBGITD_SRCS)) $(LIBCOMMON)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS)
# jb-egress reads policy.h beside its own headers
$(O)/obj/jb-egress/%.o: CPPFLAGS += -Ijb-netd
$(O)/jb-egress: $(call objs,$(JBEGRESS_SRCS)) $(LIBCOMMON)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) $(TLS_LIBS)
$(O)/git-remote-jailbee: $(call objs,$(GITREMOTE_SRCS)) $(LIBCOMMON)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS)
# no sanitizer, no shared library: it runs in the container's own world
$(O)/jb-sftp: jb-sftp/jb-sftp.c libcommon/sftprec.h
	@mkdir -p $(dir $@)
	cc -static -O2 -std=gnu11 $(WARNINGS) -D_GNU_SOURCE -Ilibcommon \
	    -o $@ jb-sftp/jb-sftp.c

# unit tests: atf-c programs linking libcommon (ATF_CFLAGS, ATF_LIBS above)
$(O)/regress/unit/%: regress/unit/%.c regress/unit/lsan_options.c $(LIBCOMMON) \
    $(TESTLIBS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(TEST_CPPFLAGS) $(ATF_CFLAGS) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< \
	    regress/unit/lsan_options.c $(TESTLIBS) $(LIBCOMMON) \
	    $(ATF_LIBS) $(PKG_LIBS) $(TLS_LIBS)
INTEG_HELPERS	:= $(O)/regress/integ/incus_client $(O)/regress/integ/ops_driver \
		   $(O)/regress/integ/exec_client $(O)/regress/integ/mountd_driver
unit-build: unit-tests $(INTEG_HELPERS)
unit-tests: $(addprefix $(O)/regress/unit/,$(UNIT_TESTS))
# what the integration tests run: the programs and their test drivers
integ-build: all $(INTEG_HELPERS)

# libFuzzer targets, built by clang with their own object directory
FUZZ_O		:= $(O)-fuzz
fuzz-build:
	$(MAKE) O=$(FUZZ_O) CC=clang SAN=1 CFLAGS='-O1 -g -fsanitize=fuzzer-no-link' \
	    $(FUZZ_O)/libcommon.a $(FUZZ_O)/libincus.a $(FUZZ_O)/libnetd.a \
	    $(FUZZ_O)/libmountd.a $(FUZZ_O)/libegress.a \
	    $(addprefix $(FUZZ_O)/regress/fuzz/,$(FUZZERS))
# make fuzz: every target FUZZTIME seconds, one after another
fuzz: fuzz-build
	regress/fuzz/run $(FUZZ_O) $(FUZZTIME) 1 $(FUZZ_O)/fuzz-results \
	    $(FUZZERS)
# make check's pass: every seed, then CHECK_FUZZTIME seconds per target,
# two at a time; the results go to run-tests' count, so a finding does not
# stop the tests
CHECK_FUZZTIME	?= 5
fuzz-check:
	rm -f $(FUZZ_O)/fuzz-results
	regress/timed "fuzz: build" $(MAKE) fuzz-build
	regress/timed "fuzz: seeds, then $(CHECK_FUZZTIME) s per target" \
	    regress/fuzz/run $(FUZZ_O) $(CHECK_FUZZTIME) 2 \
	    $(FUZZ_O)/fuzz-results $(FUZZERS)
$(O)/regress/fuzz/%: regress/fuzz/%.c $(LIBCOMMON) $(TESTLIBS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(TEST_CPPFLAGS) $(ALL_CFLAGS) -fsanitize=fuzzer $(LDFLAGS) -o $@ $< \
	    $(TESTLIBS) $(LIBCOMMON) $(PKG_LIBS) $(TLS_LIBS)

# the daemons' pure parts and clients, for the tests that drive them
$(O)/libincus.a: $(call objs,jb-incus/http_parse.c jb-incus/incus.c jb-incus/ws.c \
    jb-incus/exec.c jb-incus/bound.c jb-incus/evparse.c jb-incus/instcache.c) \
    $(O)/obj/tls/jb-incus/http_client.o
	rm -f $@
	ar rcs $@ $^
$(O)/libnetd.a: $(call objs,jb-netd/policy.c jb-netd/nftgen.c \
		   jb-netd/netd_state.c jb-netd/netd_nft.c jb-netd/netd_repos.c \
		   jb-netd/netd_record.c jb-netd/pool.c jb-netd/dnswire.c jb-netd/admitted.c \
		   jb-netd/blocked.c jb-netd/siphash.c)
	rm -f $@
	ar rcs $@ $^
# the refused-flows parser, for t_refused and fuzz_refused
$(O)/libnetd.a: $(call objs,jb-netd/refused.c jb-netd/nlset.c)
# the ranges an answer does not open alone, for t_privnet
$(O)/libnetd.a: $(call objs,jb-netd/privnet.c)
# what the egress gateway holds, for t_gwknown
$(O)/libnetd.a: $(call objs,jb-netd/gwknown.c)
$(O)/libnetd.a: $(call objs,jb-netd/nicstale.c)
$(O)/libegress.a: $(call objs,jb-egress/tlshello.c jb-egress/httphead.c \
    jb-egress/gwpolicy.c jb-egress/proxyhead.c jb-egress/subst.c jb-egress/ca.c \
    jb-egress/mitm.c jb-egress/pump.c jb-egress/tlsconf.c)
	rm -f $@
	ar rcs $@ $^
$(O)/libmountd.a: $(call objs,jb-mountd/gitdescribe.c jb-mountd/image.c \
    jb-mountd/gitconf.c jb-mountd/secretfile.c)
	rm -f $@
	ar rcs $@ $^
$(O)/libjbctl.a: $(call objs,jbctl/term.c jbctl/ctlrun.c jbctl/rebind.c jbctl/vtcurses.c)
	rm -f $@
	ar rcs $@ $^
$(O)/regress/integ/mountd_driver: regress/integ/mountd_driver.c regress/integ/driver.c $(LIBCOMMON)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(TEST_CPPFLAGS) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< regress/integ/driver.c \
	    $(LIBCOMMON) $(PKG_LIBS)
$(O)/regress/integ/ops_driver: regress/integ/ops_driver.c regress/integ/driver.c $(LIBCOMMON)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(TEST_CPPFLAGS) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< regress/integ/driver.c \
	    $(LIBCOMMON) $(PKG_LIBS)
$(O)/regress/integ/exec_client: regress/integ/exec_client.c regress/integ/driver.c $(O)/libincus.a \
    $(LIBCOMMON)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(TEST_CPPFLAGS) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< regress/integ/driver.c \
	    $(O)/libincus.a \
	    $(LIBCOMMON) $(PKG_LIBS) $(TLS_LIBS)
$(O)/regress/integ/incus_client: regress/integ/incus_client.c regress/integ/driver.c $(O)/libincus.a \
    $(LIBCOMMON)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(TEST_CPPFLAGS) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< regress/integ/driver.c \
	    $(O)/libincus.a \
	    $(LIBCOMMON) $(PKG_LIBS) $(TLS_LIBS)

$(O)/regress/bench/netd_switch: regress/bench/netd_switch.c $(O)/libnetd.a $(LIBCOMMON)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(TEST_CPPFLAGS) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(O)/libnetd.a \
	    $(LIBCOMMON) $(PKG_LIBS) $(NFT_LIBS)

$(O)/regress/bench/bridge_rules: regress/bench/bridge_rules.c $(O)/libnetd.a $(LIBCOMMON)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(TEST_CPPFLAGS) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(O)/libnetd.a \
	    $(LIBCOMMON) $(PKG_LIBS)

# jbctl dashboard's redraw: its screen code, with ncurses, writing to /dev/null
$(O)/regress/bench/dash_draw: regress/bench/dash_draw.c $(O)/obj/jbctl/dashdraw.o $(LIBCOMMON)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(TEST_CPPFLAGS) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< \
	    $(O)/obj/jbctl/dashdraw.o $(LIBCOMMON) $(PKG_LIBS) $(CURSES_LIBS)

$(O)/regress/bench/blocked_cost: regress/bench/blocked_cost.c $(O)/libnetd.a $(LIBCOMMON)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(TEST_CPPFLAGS) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(O)/libnetd.a \
	    $(LIBCOMMON) $(PKG_LIBS)

$(O)/regress/bench/secrets_tls: regress/bench/secrets_tls.c $(O)/libegress.a \
    $(O)/libnetd.a $(LIBCOMMON)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(TEST_CPPFLAGS) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< \
	    $(O)/libegress.a $(O)/libnetd.a $(LIBCOMMON) $(PKG_LIBS) $(TLS_LIBS)

# make check: the integration tests run the release build (REL_O: the
# flags users get, so the seccomp and Landlock rules users get, its
# jailbeed execing its children from that directory; the tests start it
# with -T); the unit tests run a separate ASan/UBSan build (CHECK_O).
# TESTS narrows the run to kyua filters
# (TESTS="integ/containers_test unit/t_policy") and skips the fuzzers.
CHECK_O		:= $(O)-check
REL_O		:= $(O)-rel
TESTS		?=
# make check builds with -j by the number of cores unless make was
# already given -j; each phase's time goes to JB_PHASES (regress/timed)
NPROC		:= $(shell nproc 2>/dev/null || echo 1)
CHECK_J		 = $(if $(findstring jobserver,$(MAKEFLAGS)),,-j$(NPROC))
check: export JB_PHASES ?= $(CURDIR)/$(CHECK_O)/phases
# the base image builds in the background from when the daemons exist
# until the integration tests need it (none needed for unit-only TESTS)
CHECK_IMAGE	 = $(if $(JB_IMAGE),,$(if $(TESTS),$(findstring integ,$(TESTS)),yes))
check:
	@mkdir -p $(CHECK_O) && : > $$JB_PHASES
	regress/timed "build: release (integration tests)" \
	    $(MAKE) $(CHECK_J) O=$(REL_O) LIBEXECDIR=$(CURDIR)/$(REL_O) integ-build
	$(if $(CHECK_IMAGE),JB_BUILD=$(CURDIR)/$(REL_O) \
	    regress/base-image --start $(CURDIR)/$(REL_O))
	regress/timed "build: ASan/UBSan (unit tests)" \
	    $(MAKE) $(CHECK_J) O=$(CHECK_O) SAN=1 LIBEXECDIR=$(CURDIR)/$(CHECK_O) \
	    unit-tests
	$(if $(TESTS),,-$(MAKE) $(CHECK_J) fuzz-check)
	JB_BUILD=$(CURDIR)/$(REL_O) JB_UNIT_BUILD=$(CURDIR)/$(CHECK_O) \
	    $(if $(CHECK_IMAGE),JB_IMAGE_BG=$(CURDIR)/$(REL_O)) \
	    $(if $(TESTS),,JB_FUZZ_RESULTS=$(CURDIR)/$(FUZZ_O)/fuzz-results) \
	    regress/run-tests $(TESTS)

install: all install-rc
	install -d $(DESTDIR)$(SBINDIR) $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBEXECDIR)
	install -m 0755 $(O)/jailbeed $(DESTDIR)$(SBINDIR)/jailbeed
	install -m 0755 $(O)/jbctl $(DESTDIR)$(BINDIR)/jbctl
	install -m 0755 $(O)/git-remote-jailbee \
	    $(DESTDIR)$(BINDIR)/git-remote-jailbee
	for p in jb-incus jb-incus-tls jb-netd jb-mountd jb-sshd jb-sftp jb-gitd \
	    jb-egress git-remote-jailbee; do \
	    install -m 0755 $(O)/$$p $(DESTDIR)$(LIBEXECDIR)/$$p; done
	install -d $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 \
	    $(DESTDIR)$(MANDIR)/man8
	install -m 0644 man/git-remote-jailbee.1 $(DESTDIR)$(MANDIR)/man1/
	install -m 0644 man/jailbeed.8 man/jbctl.8 man/jb-sshd.8 man/jb-egress.8 \
	    $(DESTDIR)$(MANDIR)/man8/
	install -m 0644 man/jailbee.yaml.5 $(DESTDIR)$(MANDIR)/man5/
	install -d $(DESTDIR)$(UNITDIR)
	sed 's|@SBINDIR@|$(SBINDIR)|g' etc/jailbee.service.in \
	    > $(DESTDIR)$(UNITDIR)/jailbee.service

# the rc script alone (make up starts jailbeed with it; suite_test runs it)
install-rc:
	install -d $(DESTDIR)$(SYSCONFDIR)/init.d
	sed -e 's|@SBINDIR@|$(SBINDIR)|g' -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' \
	    -e 's|@RUNDIR@|$(RUNDIR)|g' etc/jailbee.rc.in \
	    > $(DESTDIR)$(SYSCONFDIR)/init.d/jailbee
	chmod 0755 $(DESTDIR)$(SYSCONFDIR)/init.d/jailbee

# the three-member Incus cluster test (regress/cluster/), as root; not
# part of make check
cluster-check:
	$(MAKE) $(CHECK_J) O=$(REL_O) LIBEXECDIR=$(CURDIR)/$(REL_O) integ-build
	regress/cluster/check $(CURDIR)/$(REL_O)

# benchmarks: a release build whose jailbeed runs its children from there
bench:
	$(MAKE) O=build-bench LIBEXECDIR=$(CURDIR)/build-bench all \
	    build-bench/regress/bench/netd_switch \
	    build-bench/regress/bench/bridge_rules \
	    build-bench/regress/bench/blocked_cost \
	    build-bench/regress/bench/dash_draw \
	    build-bench/regress/bench/secrets_tls
	$(MAKE) O=build-bench-nocount LIBEXECDIR=$(CURDIR)/build-bench \
	    CFLAGS='-O2 -g -DJB_BENCH_NOCOUNT' build-bench-nocount/jb-netd
	regress/bench/all $(CURDIR)/build-bench \
	    $(CURDIR)/build-bench-nocount/jb-netd

deps:
	regress/setup-host

up:
	etc/up

clean:
	rm -rf $(O) $(CHECK_O) $(FUZZ_O) build-bench-nocount

-include $(shell find $(O) $(CHECK_O) -name '*.d' 2>/dev/null)
