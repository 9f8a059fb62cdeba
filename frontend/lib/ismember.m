function [tf, loc] = ismember(a, s)
%ISMEMBER  Whether each element of a occurs in s, and where: tf is logical of a's size, loc
%   the index in s of the match (0 where there is none). NaN matches nothing. Numbers, chars
%   and logicals compare by value. Where a matched value occurs more than once in s and loc is
%   asked for, m2cu stops: MATLAB gives the first index and Octave 7 the last.
%
%   m2cu's own MATLAB source: each element of a is one iteration of a parallel loop that
%   searches s in order.
check_twice = nargout > 1;
if m2cu_scalar_type(a)
  loc = position(a, s, check_twice);
  tf = loc > 0;
else
  tf = false(size(a));
  loc = zeros(size(a));
  for k = 1:numel(a)
    loc(k) = position(a(k), s, check_twice);
    tf(k) = loc(k) > 0;
  end
end
end

function l = position(v, s, check_twice)
% The first index of v in s (0 if none), after a check that it is the only one.
l = 0;
for j = 1:numel(s)
  if s(j) == v
    if l == 0
      l = j;
    elseif check_twice
      error('m2cu:ismember', 'm2cu: ismember: a value occurs more than once in S, where MATLAB gives the first index and Octave 7 the last; ask only for tf, or make S unique');
    end
  end
end
end
