build-bench/obj/libcommon/proc.o: libcommon/proc.c libcommon/log.h \
 libcommon/proc.h libcommon/imsgev.h libcommon/imsg.h libcommon/jb_msg.h
libcommon/log.h:
libcommon/proc.h:
libcommon/imsgev.h:
libcommon/imsg.h:
libcommon/jb_msg.h:
