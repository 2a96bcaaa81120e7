build-bench/obj/jb-incus/jb-incus.o: jb-incus/jb-incus.c jb-incus/http.h \
 jb-incus/incus.h libcommon/log.h jb-incus/ops.h libcommon/jb_msg.h \
 libcommon/proc.h libcommon/imsgev.h libcommon/imsg.h libcommon/jb_msg.h \
 jb-incus/ws.h libcommon/sandbox_procs.h
jb-incus/http.h:
jb-incus/incus.h:
libcommon/log.h:
jb-incus/ops.h:
libcommon/jb_msg.h:
libcommon/proc.h:
libcommon/imsgev.h:
libcommon/imsg.h:
libcommon/jb_msg.h:
jb-incus/ws.h:
libcommon/sandbox_procs.h:
