build-bench/obj/jb-sshd/jb-sshd.o: jb-sshd/jb-sshd.c libcommon/log.h \
 libcommon/proc.h libcommon/imsgev.h libcommon/imsg.h libcommon/jb_msg.h \
 libcommon/sandbox_procs.h
libcommon/log.h:
libcommon/proc.h:
libcommon/imsgev.h:
libcommon/imsg.h:
libcommon/jb_msg.h:
libcommon/sandbox_procs.h:
