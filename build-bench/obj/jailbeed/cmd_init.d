build-bench/obj/jailbeed/cmd_init.o: jailbeed/cmd_init.c jailbeed/jobs.h \
 jailbeed/jailbeed.h libcommon/config.h libcommon/imsgev.h \
 libcommon/imsg.h libcommon/jb_msg.h libcommon/repoconf.h \
 libcommon/yamltree.h libcommon/log.h
jailbeed/jobs.h:
jailbeed/jailbeed.h:
libcommon/config.h:
libcommon/imsgev.h:
libcommon/imsg.h:
libcommon/jb_msg.h:
libcommon/repoconf.h:
libcommon/yamltree.h:
libcommon/log.h:
