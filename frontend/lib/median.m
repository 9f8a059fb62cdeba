function m = median(x, dim)
%MEDIAN  Middle value along the first dimension whose extent is not 1, or along DIM.
%   median(x), median(x, dim): the middle element of each sorted column (row), the mean of
%   the two middle ones for an even count, NaN for a line with NaN. As Octave 7: the class of
%   x is kept, integers round the mean of the two middle values, logical gives logical.
%   m2cu stops where MATLAB and Octave 7 differ: an empty x (MATLAB NaN, Octave an error) and
%   two middle integers whose sum saturates (MATLAB their mean, Octave half the saturated sum).
%
%   m2cu's own MATLAB source: sorts with m2cu's sort.m, then reads the middle.
if ~(isnumeric(x) || islogical(x))
  error('median: X must be a numeric vector or matrix');
end
if isempty(x)
  error('m2cu:median', 'm2cu: median of an empty array is NaN in MATLAB and an error in Octave 7; test isempty(x) first');
end
if ndims(x) > 2
  error('m2cu:median', 'm2cu: median of a 3-D array is not supported yet');
end
if nargin < 2
  m = by_default(x);
elseif ~(dim >= 1 && dim == floor(dim))
  error('median: DIM must be an integer and a valid dimension');
else
  m = along(x, dim);
end
end

function m = by_default(x)
% Along the first dimension whose extent is more than 1: a row of results for any matrix.
if m2cu_known_dim(x) == 1
  m = along(x, 1);
elseif m2cu_known_dim(x) == 2
  m = along(x, 2);
elseif size(x, 1) == 1
  m = along(x, 2).';
else
  m = along(x, 1);
end
end

function m = along(x, dim)
% The medians of the lines of x along dim.
s = sort(x, dim);
n = size(x, dim);
k = floor((n + 1) / 2);
if dim == 1
  lo = s(k, 1:end);
  hi = s(n - k + 1, 1:end);
  last = s(n, 1:end);
elseif dim == 2
  lo = s(1:end, k);
  hi = s(1:end, n - k + 1);
  last = s(1:end, n);
else
  lo = x;
  hi = x;
  last = x;
end
if mod(n, 2) == 1
  m = lo;
elseif islogical(x)
  m = (double(lo) + double(hi)) / 2 ~= 0;
else
  m = (lo + hi) / 2;
  if isinteger(x) && any(lo + hi - lo ~= hi)
    error('m2cu:median', 'm2cu: median: the two middle values of a line add up beyond the integer class, where MATLAB gives their mean and Octave 7 half the saturated sum; convert first, median(double(x))');
  end
end
if isfloat(x)
  m(isnan(last)) = NaN;
end
end
