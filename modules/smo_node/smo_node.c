// SPDX-License-Identifier: GPL-2.0
/*
 * smo_node - move the objects of movable slab caches between NUMA nodes.
 *
 *   /sys/kernel/debug/smo_node/<cache>/move     (read-write, root)
 *	"N1"     move every object of <cache> to node 1
 *	"N0 N1"  move the objects on node 0 to node 1
 *   /sys/kernel/debug/smo_node/<cache>/balance  (read-write, root)
 *	"1"      spread the slabs of <cache> evenly over the nodes
 *   /sys/kernel/debug/smo_node/rescan           (write-only, root)
 *	"1"      add directories for caches created since the last scan
 *
 * Node numbers take an N or n prefix.  Whitespace around the input and a
 * trailing newline are ignored; anything else malformed fails with -EINVAL,
 * as does a node that is not online with normal memory.  A cache that is not
 * movable gives -EOPNOTSUPP, a cache destroyed since its directory was made
 * gives -ENOENT, a move whose target node ran out of room -ENOSPC (what
 * did not fit stays and counts as left).  Reading a file reports the last
 * operation on it:
 * "<op> <status> moved <objects> left <objects>".
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/nodemask.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#define SMON_INPUT_MAX	64

struct smon_cache {
	struct list_head list;
	struct dentry *dir;
	char result[96];
	char name[];
};

static LIST_HEAD(smon_caches);
static DEFINE_MUTEX(smon_lock);	/* smon_caches and every result */
static struct dentry *smon_root;

/* "N<digits>" or "n<digits>" naming an online node with normal memory */
static int smon_parse_node(const char *tok, int *node)
{
	if ((*tok != 'N' && *tok != 'n') || !isdigit(tok[1]))
		return -EINVAL;
	if (kstrtoint(tok + 1, 10, node) || *node >= nr_node_ids ||
	    !node_state(*node, N_NORMAL_MEMORY))
		return -EINVAL;
	return 0;
}

/* Copy a write into @buf, without surrounding whitespace */
static int smon_get_input(const char __user *ubuf, size_t len, loff_t *off,
			  char *buf, size_t size, char **input)
{
	if (*off || !len || len >= size)
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	if (strlen(buf) != len)
		return -EINVAL;
	*input = strim(buf);
	return **input ? 0 : -EINVAL;
}

/* A write that must read "1" (balance, rescan) */
static int smon_get_one(const char __user *ubuf, size_t len, loff_t *off)
{
	char buf[SMON_INPUT_MAX], *input;
	int err = smon_get_input(ubuf, len, off, buf, sizeof(buf), &input);

	if (err)
		return err;
	return strcmp(input, "1") ? -EINVAL : 0;
}

static void smon_report(struct smon_cache *sc, const char *op, int err,
			const struct kmem_move_result *res)
{
	mutex_lock(&smon_lock);
	scnprintf(sc->result, sizeof(sc->result), "%s %d moved %lu left %lu\n",
		  op, err, res->moved, res->left);
	mutex_unlock(&smon_lock);
}

static ssize_t smon_move_write(struct file *file, const char __user *ubuf,
			       size_t len, loff_t *off)
{
	struct smon_cache *sc = file->private_data;
	struct kmem_move_result res = {};
	char buf[SMON_INPUT_MAX], *input, *first, *second;
	int from = NUMA_NO_NODE, to, err;

	err = smon_get_input(ubuf, len, off, buf, sizeof(buf), &input);
	if (err)
		return err;
	first = strsep(&input, " \t");
	if (input) {
		input = skip_spaces(input);
		second = strsep(&input, " \t");
		if (input || smon_parse_node(first, &from) ||
		    smon_parse_node(second, &to))
			return -EINVAL;
	} else if (smon_parse_node(first, &to)) {
		return -EINVAL;
	}
	if (from == to)
		return -EINVAL;

	err = kmem_cache_move_nodes(sc->name, from, to, &res);
	smon_report(sc, "move", err, &res);
	return err ?: len;
}

static ssize_t smon_balance_write(struct file *file, const char __user *ubuf,
				  size_t len, loff_t *off)
{
	struct smon_cache *sc = file->private_data;
	struct kmem_move_result res = {};
	int err = smon_get_one(ubuf, len, off);

	if (err)
		return err;

	err = kmem_cache_balance_nodes(sc->name, &res);
	smon_report(sc, "balance", err, &res);
	return err ?: len;
}

static ssize_t smon_result_read(struct file *file, char __user *ubuf,
				size_t len, loff_t *off)
{
	struct smon_cache *sc = file->private_data;
	char buf[sizeof(sc->result)];

	mutex_lock(&smon_lock);
	strscpy(buf, sc->result[0] ? sc->result : "none\n", sizeof(buf));
	mutex_unlock(&smon_lock);
	return simple_read_from_buffer(ubuf, len, off, buf, strlen(buf));
}

static const struct file_operations smon_move_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = smon_result_read,
	.write = smon_move_write,
	.llseek = default_llseek,
};

static const struct file_operations smon_balance_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = smon_result_read,
	.write = smon_balance_write,
	.llseek = default_llseek,
};

/* Called under slab_mutex: allocate and remember, create files later */
static int smon_collect(const char *name, bool movable, void *data)
{
	struct list_head *fresh = data;
	struct smon_cache *sc;
	size_t len;

	list_for_each_entry(sc, &smon_caches, list)
		if (!strcmp(sc->name, name))
			return 0;
	list_for_each_entry(sc, fresh, list)
		if (!strcmp(sc->name, name))
			return 0;
	len = strlen(name) + 1;
	sc = kzalloc(sizeof(*sc) + len, GFP_KERNEL);
	if (!sc)
		return -ENOMEM;
	memcpy(sc->name, name, len);
	list_add_tail(&sc->list, fresh);
	return 0;
}

static int smon_scan(void)
{
	struct smon_cache *sc, *tmp;
	LIST_HEAD(fresh);
	struct kmem_cache_name_walk walk = {
		.fn = smon_collect,
		.data = &fresh,
	};
	int err;

	mutex_lock(&smon_lock);
	err = kmem_cache_walk_names(&walk);
	list_for_each_entry_safe(sc, tmp, &fresh, list) {
		sc->dir = debugfs_create_dir(sc->name, smon_root);
		debugfs_create_file("move", 0600, sc->dir, sc, &smon_move_fops);
		debugfs_create_file("balance", 0600, sc->dir, sc,
				    &smon_balance_fops);
		list_move_tail(&sc->list, &smon_caches);
	}
	mutex_unlock(&smon_lock);
	return err;
}

static ssize_t smon_rescan_write(struct file *file, const char __user *ubuf,
				 size_t len, loff_t *off)
{
	int err = smon_get_one(ubuf, len, off);

	if (err)
		return err;
	err = smon_scan();
	return err ?: len;
}

static const struct file_operations smon_rescan_fops = {
	.owner = THIS_MODULE,
	.write = smon_rescan_write,
	.llseek = noop_llseek,
};

static void smon_free_all(void)
{
	struct smon_cache *sc, *tmp;

	list_for_each_entry_safe(sc, tmp, &smon_caches, list) {
		list_del(&sc->list);
		kfree(sc);
	}
}

static int __init smon_init(void)
{
	int err;

	smon_root = debugfs_create_dir("smo_node", NULL);
	debugfs_create_file("rescan", 0200, smon_root, NULL, &smon_rescan_fops);
	err = smon_scan();
	if (err) {
		debugfs_remove_recursive(smon_root);
		smon_free_all();
	}
	return err;
}
module_init(smon_init);

static void __exit smon_exit(void)
{
	debugfs_remove_recursive(smon_root);
	smon_free_all();
}
module_exit(smon_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Slab Movable Objects: NUMA node move and balance control");
