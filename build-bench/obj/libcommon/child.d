build-bench/obj/libcommon/child.o: libcommon/child.c libcommon/log.h \
 libcommon/proc.h libcommon/imsgev.h libcommon/imsg.h libcommon/jb_msg.h \
 libcommon/sandbox_procs.h
libcommon/log.h:
libcommon/proc.h:
libcommon/imsgev.h:
libcommon/imsg.h:
libcommon/jb_msg.h:
libcommon/sandbox_procs.h:
