function [s, idx] = sort(x, a, b)
%SORT  Sort the elements of each column (or row, or along DIM) in ascending or descending order.
%   s = sort(x), sort(x, dim), sort(x, mode), sort(x, dim, mode), [s, idx] = sort(...).
%   As MATLAB: the sort is stable (equal elements keep their order, so idx is the same on every
%   machine), NaN goes last in ascending order and first in descending order, -0 and 0 are
%   equal, complex values sort by abs and then by angle, s has the class of x and idx is double.
%   A DIM past the second returns x unchanged (MATLAB; Octave 7 stops with "invalid dimension").
%
%   m2cu's own MATLAB source: a bottom-up merge sort of the columns of x (reshaped to a matrix,
%   or of x.' along the rows), all columns in each pass, a pass parallel over the columns and
%   over chunks of their rows (see merge_sort).
descend = false;
dim = 0;
if nargin >= 2
  if ischar(a)
    descend = descending(a);
  else
    dim = a;
  end
end
if nargin == 3
  descend = descending(b);
end
if dim == 0
  dim = 1;
  if size(x, 1) == 1
    dim = 2;
  end
elseif ~(dim >= 1 && dim == floor(dim))
  error('sort: DIM must be a valid dimension');
end
s = x;
idx = ones(size(x));
if dim <= 2
  % The lines to sort as the columns of a matrix.
  if dim == 1
    [m, n] = size(x);
    lines = reshape(x, m, n);
  else
    if ndims(x) > 2
      error('m2cu:sort', 'm2cu: sort along the rows of a 3-D array is not supported yet');
    end
    lines = x.';
  end
  [keys, order] = merge_sort(lines, descend);
  if dim == 1
    s = reshape(keys, size(x));
    idx = reshape(order, size(x));
  else
    s = reshape(keys.', size(x));
    idx = reshape(order.', size(x));
  end
end
end

function [keys, order] = merge_sort(keys, descend)
% Sorts each column of keys, stably; order(k, line) is the row in the input of keys(k, line).
% Each pass merges neighbouring sorted runs of `width` elements into runs of 2 * width, in
% every column at once. The rows of a pass are cut into chunks of 64, independent of each
% other and of the other columns (a thread each on the GPU, a loop OpenMP shares on the CPU):
% a chunk finds where the element of its first row comes from by a binary search along the
% merge path of its two runs, then merges its rows in order, starting the next pair of runs
% where one ends.
[len, lines] = size(keys);
order = repmat((1:len)', 1, lines);
merged = keys;
merged_order = order;
chunks = ceil(len / 64);
width = 1;
while width < len
  for line = 1:lines
    for c = 1:chunks
      first = 64 * (c - 1) + 1;
      lo = first - mod(first - 1, 2 * width);
      mid = min(lo + width - 1, len);
      hi = min(lo + 2 * width - 1, len);
      [i, j] = merge_path(keys, line, first - lo, lo, mid, hi, descend);
      for t = 1:64
        k = 64 * (c - 1) + t;
        if k <= len
          if k > hi
            lo = k;
            mid = min(lo + width - 1, len);
            hi = min(lo + 2 * width - 1, len);
            i = lo;
            j = mid + 1;
          end
          if i <= mid && (j > hi || in_order(keys(i, line), keys(j, line), descend))
            merged(k, line) = keys(i, line);
            merged_order(k, line) = order(i, line);
            i = i + 1;
          else
            merged(k, line) = keys(j, line);
            merged_order(k, line) = order(j, line);
            j = j + 1;
          end
        end
      end
    end
  end
  keys = merged;
  order = merged_order;
  width = 2 * width;
end
end

function [i, j] = merge_path(keys, line, d, lo, mid, hi, descend)
% Where merging the sorted runs keys(lo:mid, line) and keys(mid+1:hi, line) stands after its first d
% outputs: i is the next position of the left run to take, j the next of the right run. The
% number of left elements among those d outputs is the smallest a for which the left run's
% element a + 1 does not go before the right run's element d - a (found by bisection).
a_lo = max(0, d - (hi - mid));
a_hi = min(d, mid - lo + 1);
while a_lo < a_hi
  a = floor((a_lo + a_hi) / 2);
  if in_order(keys(lo + a, line), keys(mid + d - a, line), descend)
    a_lo = a + 1;
  else
    a_hi = a;
  end
end
i = lo + a_lo;
j = mid + 1 + d - a_lo;
end

function t = in_order(l, r, descend)
% Whether l may stay before r: NaN last ascending, first descending; ties keep their order.
if ~isreal(l)
  t = in_order_complex(l, r, descend);
elseif descend
  t = isnan(l) || l >= r;
else
  t = isnan(r) || l <= r;
end
end

function t = in_order_complex(l, r, descend)
% Complex values in order of abs, then of angle, NaN (in either part) as above.
l_nan = isnan(real(l)) || isnan(imag(l));
r_nan = isnan(real(r)) || isnan(imag(r));
if descend
  t = l_nan || (~r_nan && (abs(l) > abs(r) || (abs(l) == abs(r) && angle(l) >= angle(r))));
else
  t = r_nan || (~l_nan && (abs(l) < abs(r) || (abs(l) == abs(r) && angle(l) <= angle(r))));
end
end

function d = descending(mode)
% Whether the mode argument asks for descending order (any letter case, as MATLAB).
d = strcmpi(mode, 'descend');
if ~d && ~strcmpi(mode, 'ascend')
  error('sort: MODE must be either "ascend" or "descend"');
end
end
