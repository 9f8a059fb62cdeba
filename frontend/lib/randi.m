function r = randi(bounds, m, n)
%RANDI  Uniformly distributed integers, as doubles: randi(imax) draws from 1:imax,
%   randi([imin imax]) from imin:imax; randi(b, n) is n-by-n, randi(b, m, n) and
%   randi(b, [m n]) m-by-n. Each value is imin + floor(u * (imax - imin + 1)) for a draw u of
%   rand in (0, 1), so every integer of the range is equally likely; the values come from
%   m2cu's random stream (--seed), not MATLAB's or Octave's. Bounds are checked with Octave's
%   messages. A class argument ('int32', 'like') is not supported yet.
if numel(bounds) == 1
  lo = 1;
  hi = bounds(1);
  if ~(hi >= 1)
    error('randi: require IMAX >= 1');
  end
else
  lo = bounds(1);
  hi = bounds(2);
  if ~(lo <= hi)
    error('randi: require IMIN <= IMAX');
  end
end
if lo ~= fix(lo) || hi ~= fix(hi)
  error('randi: IMIN and IMAX must be integer bounds');
end
if nargin == 1
  u = rand;
elseif nargin == 2
  u = rand(m);
else
  u = rand(m, n);
end
r = lo + floor(u * (hi - lo + 1));
end
