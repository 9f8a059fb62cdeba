function y = conv(a, b, shape)
%CONV  The convolution of the vectors a and b: 'full' (numel(a) + numel(b) - 1 elements, the
%   default), 'same' (the central part, as many as a has) or 'valid' (only the parts computed
%   without the zero padding). y(n) sums b(i) * a(n - i + 1) over i in increasing order, as
%   Octave's conv2 does. y has a's orientation (Octave gives a 'full' result b's orientation
%   when b is at least as long as a: where that differs, m2cu stops).
%
%   m2cu's own MATLAB source: a parallel loop over the result, each element a sum in order.
if nargin < 3
  shape = 'full';
end
if ~isvector(a) || ~isvector(b)
  error('conv: both arguments A and B must be vectors');
end
if ~isfloat(a) || ~isfloat(b)
  m2cu_refuse('`conv` of integer, logical or char values: MATLAB and Octave give classes of their own', ...
              'convert first, `conv(double(a), double(b))`');
end
if ~isreal(a) || ~isreal(b)
  m2cu_refuse('`conv` of complex values are not supported yet', 'conv(real(a), b) and conv(imag(a), b) for the parts');
end
la = numel(a);
lb = numel(b);
if strcmpi(shape, 'full')
  first = 1;
  len = la + lb - 1;
  if la <= lb && (size(a, 1) == 1) ~= (size(b, 1) == 1)
    error('m2cu:conv', 'm2cu: conv of a row and a column with the second at least as long gives the second''s orientation in MATLAB, which m2cu does not follow; give both the same orientation');
  end
elseif strcmpi(shape, 'same')
  first = floor(lb / 2) + 1;
  len = la;
elseif strcmpi(shape, 'valid')
  first = lb;
  len = max(la - lb + 1, 0);
else
  error('conv: SHAPE argument must be "full", "same", or "valid"');
end
if size(a, 1) == 1
  y = zeros(1, len);
else
  y = zeros(len, 1);
end
for k = 1:len
  n = first + k - 1;
  s = 0;
  for i = max(1, n - la + 1):min(lb, n)
    s = s + b(i) * a(n - i + 1);
  end
  y(k) = s;
end
end
