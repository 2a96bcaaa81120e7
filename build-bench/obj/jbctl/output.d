build-bench/obj/jbctl/output.o: jbctl/output.c jbctl/jbctl.h \
 libcommon/jb_msg.h
jbctl/jbctl.h:
libcommon/jb_msg.h:
