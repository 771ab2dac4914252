/* SPDX-License-Identifier: GPL-2.0 */
/*
 * smo_cmd.h - the one command dispatcher of the smo test and bench modules.
 *
 * smo_test, smo_xarray and smo_bench take commands through a debugfs
 * "callfn" file, one per write: "NAME [ARG...]", words separated by
 * blanks.  One failure has one errno in all of them:
 *	-EINVAL	a write at an offset, an empty one, one of SMO_CMD_MAX bytes
 *		or more, one with a NUL inside (it would cut the command
 *		short), no word, an unknown command, a wrong number of
 *		arguments, or an argument the command refuses
 *	-EFAULT	the user buffer could not be read
 *	-ENOMEM	no memory for the copy
 * Other errors come from the command itself.
 *
 * The modules users install do not include this file: smo_template is the
 * module authors copy alone, and smo_node's inputs are not commands; both
 * parse their writes themselves and fail them with the same errnos.
 */
#ifndef _SMO_CMD_H
#define _SMO_CMD_H

#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#define SMO_CMD_MAX		128	/* bytes of one write, the NUL excluded */
#define SMO_CMD_MAX_ARGS	4

/**
 * struct smo_cmd - one command of a command file
 * @name: the first word of the write
 * @min_args: fewest arguments after it
 * @max_args: most arguments after it (at most SMO_CMD_MAX_ARGS)
 * @fn: runs the command with the @argc words after the name
 */
struct smo_cmd {
	const char *name;
	int min_args, max_args;
	int (*fn)(int argc, const char **argv);
};

/**
 * smo_cmd_copy() - copy one write of a command file
 * @ubuf: the user buffer
 * @len: its length
 * @off: the file offset
 *
 * Return: the write as a NUL-terminated string the caller kfree()s, or an
 * ERR_PTR(): -EINVAL (offset, empty, too long, NUL inside), -EFAULT,
 * -ENOMEM.
 */
static inline char *smo_cmd_copy(const char __user *ubuf, size_t len,
				 const loff_t *off)
{
	char *line;

	if (*off || !len || len >= SMO_CMD_MAX)
		return ERR_PTR(-EINVAL);
	line = memdup_user_nul(ubuf, len);
	if (!IS_ERR(line) && strlen(line) != len) {
		kfree(line);
		return ERR_PTR(-EINVAL);
	}
	return line;
}

/**
 * smo_cmd_run() - split a command line into words and run its command
 * @cmds: the commands of the file
 * @nr_cmds: how many
 * @line: the line, split in place
 *
 * Return: -EINVAL for no word, an unknown command or a wrong number of
 * arguments; otherwise what the command returned.
 */
static inline int smo_cmd_run(const struct smo_cmd *cmds, size_t nr_cmds,
			      char *line)
{
	const char *argv[SMO_CMD_MAX_ARGS + 1];
	const char *word;
	int argc = 0;
	size_t i;

	while ((word = strsep(&line, " \t\n")) != NULL) {
		if (!*word)
			continue;
		if (argc == ARRAY_SIZE(argv))
			return -EINVAL;
		argv[argc++] = word;
	}
	if (!argc)
		return -EINVAL;
	for (i = 0; i < nr_cmds; i++) {
		if (strcmp(cmds[i].name, argv[0]))
			continue;
		if (argc - 1 < cmds[i].min_args || argc - 1 > cmds[i].max_args)
			return -EINVAL;
		return cmds[i].fn(argc - 1, argv + 1);
	}
	return -EINVAL;
}

/**
 * smo_cmd_write() - the .write of a command file
 * @cmds: the commands of the file
 * @nr_cmds: how many
 * @lock: held around the command, or %NULL
 * @ubuf: the user buffer
 * @len: its length
 * @off: the file offset
 *
 * smo_cmd_copy(), then smo_cmd_run() under @lock.
 *
 * Return: @len if the command succeeded, else the error of the copy or
 * of smo_cmd_run().
 */
static inline ssize_t smo_cmd_write(const struct smo_cmd *cmds, size_t nr_cmds,
				    struct mutex *lock,
				    const char __user *ubuf, size_t len,
				    const loff_t *off)
{
	char *line = smo_cmd_copy(ubuf, len, off);
	int err;

	if (IS_ERR(line))
		return PTR_ERR(line);
	if (lock)
		mutex_lock(lock);
	err = smo_cmd_run(cmds, nr_cmds, line);
	if (lock)
		mutex_unlock(lock);
	kfree(line);
	return err ?: len;
}

#endif /* _SMO_CMD_H */
