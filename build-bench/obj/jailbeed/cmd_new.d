build-bench/obj/jailbeed/cmd_new.o: jailbeed/cmd_new.c jailbeed/capture.h \
 jailbeed/jailbeed.h libcommon/config.h libcommon/imsgev.h \
 libcommon/imsg.h libcommon/jb_msg.h jailbeed/jobs.h libcommon/repoconf.h \
 libcommon/yamltree.h libcommon/log.h
jailbeed/capture.h:
jailbeed/jailbeed.h:
libcommon/config.h:
libcommon/imsgev.h:
libcommon/imsg.h:
libcommon/jb_msg.h:
jailbeed/jobs.h:
libcommon/repoconf.h:
libcommon/yamltree.h:
libcommon/log.h:
