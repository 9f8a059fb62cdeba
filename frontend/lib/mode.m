function [m, f] = mode(x, dim)
%MODE  Most frequent value along the first dimension whose extent is not 1, or along DIM.
%   [m, f] = mode(x), mode(x, dim): m is the value that occurs most often in each column
%   (row), the smallest of those that tie, and f how often it occurs. As MATLAB and Octave:
%   NaN values are each different from every other (so they win only when nothing repeats and
%   nothing else is there), -0 and 0 are equal, m has the class of x and f is double.
%   m2cu stops on an empty x, where MATLAB (NaN) and Octave 7 (a 1-by-0 or 0-by-1 m) differ.
%
%   m2cu's own MATLAB source: sorts with m2cu's sort.m, then counts runs of equal values.
if ~(isnumeric(x) || islogical(x))
  error('mode: X must be a numeric vector or matrix');
end
if isempty(x)
  error('m2cu:mode', 'm2cu: mode of an empty array is NaN in MATLAB and an empty array in Octave 7; test isempty(x) first');
end
if ndims(x) > 2
  error('m2cu:mode', 'm2cu: mode of a 3-D array is not supported yet');
end
if nargin < 2
  [m, f] = by_default(x);
elseif ~(dim >= 1 && dim == floor(dim))
  error('mode: DIM must be an integer and a valid dimension');
else
  [m, f] = along(x, dim);
end
end

function [m, f] = by_default(x)
% Along the first dimension whose extent is more than 1: a row of results for any matrix.
if m2cu_known_dim(x) == 1
  [m, f] = along(x, 1);
elseif m2cu_known_dim(x) == 2
  [m, f] = along(x, 2);
elseif size(x, 1) == 1
  [m, f] = along(x, 2);
  m = m.';
  f = f.';
else
  [m, f] = along(x, 1);
end
end

function [m, f] = along(x, dim)
% The modes of the lines of x along dim and their counts.
[rows, cols] = size(x);
s = sort(x, dim);
if dim == 1
  m = s(1, 1:cols);
  f = ones(1, cols);
  for j = 1:cols
    [m(j), f(j)] = most_frequent(s, 1 + (j - 1) * rows, 1, rows);
  end
elseif dim == 2
  m = s(1:rows, 1);
  f = ones(rows, 1);
  for i = 1:rows
    [m(i), f(i)] = most_frequent(s, i, rows, cols);
  end
else
  m = x;
  f = ones(rows, cols);
end
end

function [best, count] = most_frequent(s, first, stride, len)
% The value of the longest run of equal values in s(first), s(first + stride), ... (len
% elements, sorted): the first element of the first such run, and the run's length.
best = s(first);
count = 1;
run = 1;
start = 0;
for k = 1:len - 1
  if s(first + k * stride) == s(first + (k - 1) * stride)
    run = run + 1;
  else
    run = 1;
    start = k;
  end
  if run > count
    count = run;
    best = s(first + start * stride);
  end
end
end
