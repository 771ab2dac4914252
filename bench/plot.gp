# SPDX-License-Identifier: GPL-2.0
# The plot of bench/run: one panel per data file that the run wrote.
#   gnuplot -e "dir='bench/out'" bench/plot.gp      (writes DIR/bench.png)
# DIR/defrag.dat  one block per object count (two blank lines between
#                 blocks), each starting with a "# objects N: ..." comment;
#                 rows "1/K before with_mobility without optimum", where
#                 "without" is the shrink of the same-shaped fixed cache
# DIR/xarray.dat  rows "cache before after optimum"
# DIR/dentry.dat  rows "method slabs_freed_per_1000_evicted"
if (!exists("dir")) dir = 'bench/out'
defrag = dir . '/defrag.dat'
xarray = dir . '/xarray.dat'
dentry = dir . '/dentry.dat'
has(f) = int(system(sprintf("test -s '%s' && echo 1 || echo 0", f)))

blocks = has(defrag) ? int(system(sprintf("grep -c '^# objects' '%s'", defrag))) : 0
panels = blocks + has(xarray) + has(dentry)
if (panels == 0) { print "plot.gp: no data in " . dir; exit }
cols = panels > 1 ? 2 : 1
rows = (panels + 1) / 2

set terminal pngcairo noenhanced size (680 * cols), (440 * rows) font ",10"
set output dir . '/bench.png'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set grid ytics
set key outside right top vertical
set yrange [0:*]
set offsets 0, 0, graph 0.05, 0
set bmargin 4

set multiplot layout rows, cols title "smo: what mobility buys (bench/run, one boot)"

set ylabel "slabs (all nodes)"
do for [b = 0:blocks - 1] {
	# the object count from the block's comment line
	n = system(sprintf("awk -v b=%d '/^# objects/ { if (i++ == b) { sub(/:.*/, \"\", $3); print $3 } }' '%s'", b, defrag))
	set title sprintf("smo_bench, %s objects: slabs per keep ratio (1 in K kept)", n)
	plot defrag index b using 2:xtic(1) title "before" lc rgb "#999999", \
	     '' index b using 3 title "after, mobility" lc rgb "#1b9e77", \
	     '' index b using 4 title "after, no mobility" lc rgb "#d95f02", \
	     '' index b using 5 title "optimum" lc rgb "#7570b3"
}

if (has(xarray)) {
	set title "XArray nodes (smo_xarray, 1 in 200 entries kept): slabs per cache"
	plot xarray using 2:xtic(1) title "before" lc rgb "#999999", \
	     '' using 3 title "after shrink" lc rgb "#1b9e77", \
	     '' using 4 title "optimum" lc rgb "#7570b3"
}

if (has(dentry)) {
	set title "dentry: slabs freed per 1000 evicted dentries"
	set ylabel "slabs freed"
	set style histogram rowstacked
	set boxwidth 0.5
	plot dentry using 2:xtic(1) notitle lc rgb "#1b9e77"
}
unset multiplot
