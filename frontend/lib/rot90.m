function B = rot90(A, k)
%ROT90  A rotated by k quarter turns counterclockwise (one without k; a negative k turns
%   clockwise): rot90(A) is flipud(A.'), rot90(A, 2) reverses both dimensions and
%   rot90(A, 3) is fliplr(A.'). Of a 2-D array; k is checked with Octave's message.
if nargin < 2
  k = 1;
elseif ~(numel(k) == 1 && isreal(k) && k == fix(k))
  error('rot90: K must be a single real integer');
end
if ndims(A) > 2
  error('m2cu:rot90', 'm2cu: rot90 of a 3-D array is not supported yet');
end
turns = mod(k, 4);
if turns == 0
  B = A;
elseif turns == 1
  B = flipud(A.');
elseif turns == 2
  B = flipud(fliplr(A));
else
  B = fliplr(A.');
end
end
