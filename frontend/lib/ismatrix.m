function t = ismatrix(x)
%ISMATRIX  Whether x has two dimensions (any scalar, vector, matrix or empty 2-D array), as
%   MATLAB and Octave 7 answer: ndims(x) == 2.
%
%   m2cu's own MATLAB source.
t = ndims(x) == 2;
end
