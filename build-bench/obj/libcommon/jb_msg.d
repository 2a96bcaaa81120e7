build-bench/obj/libcommon/jb_msg.o: libcommon/jb_msg.c libcommon/jb_msg.h
libcommon/jb_msg.h:
