build-bench/obj/jb-netd/jb-netd.o: jb-netd/jb-netd.c libcommon/log.h \
 jb-netd/nftgen.h jb-netd/policy.h libcommon/proc.h libcommon/imsgev.h \
 libcommon/imsg.h libcommon/jb_msg.h libcommon/sandbox_procs.h
libcommon/log.h:
jb-netd/nftgen.h:
jb-netd/policy.h:
libcommon/proc.h:
libcommon/imsgev.h:
libcommon/imsg.h:
libcommon/jb_msg.h:
libcommon/sandbox_procs.h:
