build-bench/obj/jb-mountd/jb-mountd.o: jb-mountd/jb-mountd.c \
 libcommon/log.h libcommon/proc.h libcommon/imsgev.h libcommon/imsg.h \
 libcommon/jb_msg.h libcommon/sandbox_procs.h jb-mountd/repo.h \
 libcommon/jb_msg.h
libcommon/log.h:
libcommon/proc.h:
libcommon/imsgev.h:
libcommon/imsg.h:
libcommon/jb_msg.h:
libcommon/sandbox_procs.h:
jb-mountd/repo.h:
libcommon/jb_msg.h:
