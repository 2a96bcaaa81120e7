build-bench/obj/jailbeed/children.o: jailbeed/children.c \
 jailbeed/jailbeed.h libcommon/config.h libcommon/imsgev.h \
 libcommon/imsg.h libcommon/jb_msg.h libcommon/log.h libcommon/proc.h \
 libcommon/imsgev.h libcommon/jb_msg.h
jailbeed/jailbeed.h:
libcommon/config.h:
libcommon/imsgev.h:
libcommon/imsg.h:
libcommon/jb_msg.h:
libcommon/log.h:
libcommon/proc.h:
libcommon/imsgev.h:
libcommon/jb_msg.h:
