build-bench/obj/libcommon/sandbox_procs.o: libcommon/sandbox_procs.c \
 libcommon/log.h libcommon/proc.h libcommon/imsgev.h libcommon/imsg.h \
 libcommon/jb_msg.h libcommon/sandbox.h libcommon/sandbox_procs.h
libcommon/log.h:
libcommon/proc.h:
libcommon/imsgev.h:
libcommon/imsg.h:
libcommon/jb_msg.h:
libcommon/sandbox.h:
libcommon/sandbox_procs.h:
