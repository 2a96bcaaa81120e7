build-bench/obj/libcommon/privdrop.o: libcommon/privdrop.c \
 libcommon/log.h libcommon/proc.h libcommon/imsgev.h libcommon/imsg.h \
 libcommon/jb_msg.h
libcommon/log.h:
libcommon/proc.h:
libcommon/imsgev.h:
libcommon/imsg.h:
libcommon/jb_msg.h:
