//! [`RowSplit`]: how M splits into the ranks' shards and each shard into
//! chunks (plain arithmetic, the same on every rank).

/// M rows over `ranks` shards of `ceil(M / ranks)` rows (the last ones
/// shorter, or empty, where M is ragged), each shard in `chunks` chunks of
/// `ceil(shard / chunks)` rows (the last one shorter).
///
/// ```
/// use cutlet::distributed::RowSplit;
///
/// // 10 rows on 4 ranks: shards of 3, 3, 3, 1; in 2 chunks of 2 and 1 rows.
/// let split = RowSplit::new(10, 4, 2);
/// assert_eq!(split.shard_rows(), 3);
/// assert_eq!((0..4).map(|r| split.rows_of(r)).collect::<Vec<_>>(), [3, 3, 3, 1]);
/// assert_eq!(split.chunks(), vec![(0, 2), (2, 1)]);
/// // Rank 3's chunk 1 (rows 2..3 of its shard) holds none of its 1 row.
/// assert_eq!(split.valid_rows(3, (2, 1)), 0);
/// assert_eq!(split.first_row(2), 6);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RowSplit {
    m: usize,
    ranks: usize,
    chunks: usize,
}

impl RowSplit {
    /// `m` rows over `ranks` ranks (at least 1), `chunks` chunks a shard
    /// (at least 1).
    pub fn new(m: usize, ranks: usize, chunks: usize) -> RowSplit {
        RowSplit {
            m,
            ranks: ranks.max(1),
            chunks: chunks.max(1),
        }
    }

    /// The ranks.
    pub fn ranks(&self) -> usize {
        self.ranks
    }

    /// Rows of a full shard: `ceil(M / ranks)`.
    pub fn shard_rows(&self) -> usize {
        self.m.div_ceil(self.ranks)
    }

    /// The first global row of rank `rank`'s shard.
    pub fn first_row(&self, rank: usize) -> usize {
        (rank * self.shard_rows()).min(self.m)
    }

    /// Rows rank `rank` holds.
    pub fn rows_of(&self, rank: usize) -> usize {
        let first = self.first_row(rank);
        (first + self.shard_rows()).min(self.m) - first
    }

    /// The chunks of a full shard: `(first row in the shard, rows)`, none
    /// empty.
    pub fn chunks(&self) -> Vec<(usize, usize)> {
        let shard = self.shard_rows();
        let size = shard.div_ceil(self.chunks).max(1);
        (0..shard)
            .step_by(size)
            .map(|first| (first, size.min(shard - first)))
            .collect()
    }

    /// Rows of `chunk` that lie in rank `rank`'s shard.
    pub fn valid_rows(&self, rank: usize, (first, rows): (usize, usize)) -> usize {
        self.rows_of(rank).saturating_sub(first).min(rows)
    }
}
