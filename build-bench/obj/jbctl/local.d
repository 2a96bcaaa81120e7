build-bench/obj/jbctl/local.o: jbctl/local.c jbctl/jbctl.h \
 libcommon/jb_msg.h libcommon/repoconf.h libcommon/yamltree.h
jbctl/jbctl.h:
libcommon/jb_msg.h:
libcommon/repoconf.h:
libcommon/yamltree.h:
