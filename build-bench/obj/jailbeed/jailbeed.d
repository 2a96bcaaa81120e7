build-bench/obj/jailbeed/jailbeed.o: jailbeed/jailbeed.c \
 jailbeed/jailbeed.h libcommon/config.h libcommon/imsgev.h \
 libcommon/imsg.h libcommon/jb_msg.h libcommon/log.h libcommon/proc.h \
 libcommon/imsgev.h libcommon/jb_msg.h libcommon/sandbox_procs.h
jailbeed/jailbeed.h:
libcommon/config.h:
libcommon/imsgev.h:
libcommon/imsg.h:
libcommon/jb_msg.h:
libcommon/log.h:
libcommon/proc.h:
libcommon/imsgev.h:
libcommon/jb_msg.h:
libcommon/sandbox_procs.h:
