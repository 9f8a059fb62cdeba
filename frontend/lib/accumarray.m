function A = accumarray(subs, vals, sz, fun)
%ACCUMARRAY  Sums of vals grouped by subscript: A(i) is the sum of vals(k) over the k with
%   subs(k) == i (vals may be one value for every k), a column of max(subs) elements, or of
%   sz(1) with accumarray(subs, vals, [n 1]) (or [] for the default). The sums run in the order
%   of subs, as Octave's. accumarray(subs, vals, sz, fun) gives fun(v) of each group's values
%   v (a column, in the order of subs) instead, and 0 for a subscript no k has. Subscripts of one column only; integer and char values are refused.
if isinteger(vals)
  m2cu_refuse('`accumarray` of integer values: MATLAB keeps the integer class and saturates, Octave 7 returns double sums, so m2cu takes neither', ...
              'convert first for the double sums, `accumarray(subs, double(vals))`');
end
if ischar(vals)
  m2cu_refuse('`accumarray` of char values: MATLAB and Octave stop (the values must be numeric or logical)', ...
              'convert first, `accumarray(subs, double(vals))`');
end
if size(subs, 2) ~= 1
  error('m2cu:accumarray', 'm2cu: accumarray with subscripts of more than one column is not supported yet');
end
for k = 1:numel(subs)
  if ~(subs(k) >= 1 && subs(k) == fix(subs(k)))
    error('accumarray: indices must be positive integers');
  end
end
if numel(vals) ~= 1 && numel(vals) ~= numel(subs)
  error('accumarray: dimension mismatch');
end
if nargin < 3 || isempty(sz)
  n = max(subs);
else
  n = sz(1);
  if max(subs) > n
    error('accumarray: index out of range');
  end
end
A = zeros(n, 1);
if nargin == 4
  if numel(vals) == 1
    vals = vals * ones(size(subs));
  end
  for i = 1:n
    group = vals(subs == i);
    if ~isempty(group)
      A(i) = fun(group(:));
    end
  end
  return;
end
for k = 1:numel(subs)
  A(subs(k)) = A(subs(k)) + value(vals, k);
end
end

function v = value(vals, k)
% vals(k), or the one value.
if m2cu_scalar_type(vals)
  v = vals;
else
  v = vals(k);
end
end
