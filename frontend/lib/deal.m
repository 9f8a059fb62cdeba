function [a, b, c, d] = deal(x1, x2, x3, x4)
%DEAL  Each input to the output in its place, or one input to every output, as MATLAB deals
% them (up to four).
if nargin == 1
  a = x1;
  b = x1;
  c = x1;
  d = x1;
elseif nargin == nargout
  a = x1;
  if nargin >= 2
    b = x2;
  end
  if nargin >= 3
    c = x3;
  end
  if nargin >= 4
    d = x4;
  end
else
  error('deal: nargin > 1 and nargin != nargout');
end
end
