build-bench/obj/jailbeed/control.o: jailbeed/control.c libcommon/cmdtab.h \
 jailbeed/jailbeed.h libcommon/config.h libcommon/imsgev.h \
 libcommon/imsg.h libcommon/jb_msg.h libcommon/log.h libcommon/proc.h \
 libcommon/imsgev.h libcommon/jb_msg.h
libcommon/cmdtab.h:
jailbeed/jailbeed.h:
libcommon/config.h:
libcommon/imsgev.h:
libcommon/imsg.h:
libcommon/jb_msg.h:
libcommon/log.h:
libcommon/proc.h:
libcommon/imsgev.h:
libcommon/jb_msg.h:
