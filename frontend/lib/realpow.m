function c = realpow(a, b)
%REALPOW  `a .^ b` where every result is real. As Octave, a negative base to a power that is not
%   a whole number (NaN included), whose result would be complex, stops with Octave's message.
bad = a < 0 & b ~= fix(b);
if any(bad(:))
  error('realpow: produced complex result');
end
c = a .^ b;
end
