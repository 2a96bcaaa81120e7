build-bench/obj/jailbeed/request.o: jailbeed/request.c \
 jailbeed/jailbeed.h libcommon/config.h libcommon/imsgev.h \
 libcommon/imsg.h libcommon/jb_msg.h libcommon/log.h
jailbeed/jailbeed.h:
libcommon/config.h:
libcommon/imsgev.h:
libcommon/imsg.h:
libcommon/jb_msg.h:
libcommon/log.h:
