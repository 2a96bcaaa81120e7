build-bench/obj/jailbeed/capture.o: jailbeed/capture.c jailbeed/capture.h \
 jailbeed/jailbeed.h libcommon/config.h libcommon/imsgev.h \
 libcommon/imsg.h libcommon/jb_msg.h libcommon/log.h
jailbeed/capture.h:
jailbeed/jailbeed.h:
libcommon/config.h:
libcommon/imsgev.h:
libcommon/imsg.h:
libcommon/jb_msg.h:
libcommon/log.h:
