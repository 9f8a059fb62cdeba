function y = asind(x)
%ASIND  The inverse sine in degrees, as Octave computes it: asin(x) .* 180 ./ pi.
y = asin(x) .* 180 ./ pi;
end
