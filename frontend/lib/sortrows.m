function [s, i] = sortrows(A, c)
%SORTROWS  The rows of the matrix A in ascending order: by the first column, ties by the second,
%   and so on; sortrows(A, c) sorts by the columns listed in c, in turn, a negative entry -k
%   by column k in descending order. i is the column of row numbers with s = A(i, :).
%   As MATLAB and Octave: the sort is stable (equal rows keep their order), NaN goes last in
%   ascending order and first in descending order, and an entry of c that is 0 or past the
%   last column stops with Octave's error.
%
%   m2cu's own MATLAB source: the row order is sorted stably by each key column in turn, the
%   last key first (Octave's generic algorithm), with m2cu's stable sort.m.
if ~isreal(A)
  m2cu_refuse('`sortrows` of complex values is not supported yet', 'sort the rows of [real(A) imag(A)] or of abs(A) and use the order that sortrows returns');
end
if nargin == 2
  if ~(isnumeric(c) && isvector(c))
    error('sortrows: C must be a numeric vector');
  elseif any(c == 0) || any(abs(c) > size(A, 2))
    error('sortrows: all elements of C must be in the range [1, columns (A)]');
  end
else
  c = 1:size(A, 2);
end
i = (1:size(A, 1))';
for j = numel(c):-1:1
  if c(j) > 0
    [~, p] = sort(A(i, c(j)));
  else
    [~, p] = sort(A(i, -c(j)), 'descend');
  end
  i = i(p);
end
s = A(i, :);
end
